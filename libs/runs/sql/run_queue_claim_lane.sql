-- The claim of one lane by name (the sweep): its lapsed leases recovered (run_lane_lapses), then
-- its oldest queued runs started in its free slots, at most p_limit (run_lane_start).
-- Returns {started: [run_queue_started…], lost: [run_queue_ref…]} (ClaimRowSchema in libs/runs).
CREATE OR REPLACE FUNCTION "run_queue_claim_lane"(p_lane text, p_owner text, p_lease_ms int, p_limit int) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  lost jsonb := run_lane_lapses(p_lane);
  ids uuid[];
BEGIN
  -- Its own statement: what run_queue_claimed reads must see the runs just started.
  ids := run_lane_start(p_lane, p_owner, p_lease_ms, p_limit);
  RETURN run_queue_claimed(ids, lost);
END
$$;
