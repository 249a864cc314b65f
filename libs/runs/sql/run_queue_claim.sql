-- A job's claim: the lane of the run it names (nothing when the run is gone).
CREATE OR REPLACE FUNCTION "run_queue_claim"(p_run uuid, p_owner text, p_lease_ms int, p_limit int) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_lane text := run_lane_of(p_run);
BEGIN
  IF v_lane IS NULL THEN
    RETURN jsonb_build_object('started', '[]'::jsonb, 'lost', '[]'::jsonb);
  END IF;
  RETURN run_queue_claim_lane(v_lane, p_owner, p_lease_ms, p_limit);
END
$$;
