-- A job's claim (decision 0054): the lapsed leases of the lane of the run it names recovered,
-- then up to p_limit runs started across workspaces in the fair order (run_queue_claim_next) —
-- the job is a wake-up, not a place in line. Nothing when the run is gone.
CREATE OR REPLACE FUNCTION "run_queue_claim"(p_run uuid, p_owner text, p_lease_ms int, p_limit int) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_lane text := run_lane_of(p_run);
  lost jsonb;
  ids uuid[];
BEGIN
  IF v_lane IS NULL THEN
    RETURN jsonb_build_object('started', '[]'::jsonb, 'lost', '[]'::jsonb);
  END IF;
  lost := run_lane_lapses(v_lane);
  -- Its own statement: what run_queue_claimed reads must see the runs just started.
  ids := run_queue_claim_next(p_owner, p_lease_ms, p_limit);
  RETURN run_queue_claimed(ids, lost);
END
$$;
