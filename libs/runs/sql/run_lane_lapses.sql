-- The recovery of a lane's lapsed leases (decision 0009), made by the claims of that lane. Under
-- the lane's lock, taken only when a lapsed lease is there (decision 0054: a claim of a lane whose
-- runners are alive takes no lane-wide lock):
--   1. notes the lapsed leases (run_lease_lapses_note);
--   2. settles the lapsed runs (run_lease_lapses_settle): back in line, to be continued from
--      their last stored step, or failed runner_lost inside a call not safe to repeat (decision 0051).
-- Their slots are freed by the runs trigger (run_lane_slot_release). Returns the runs failed
-- lost (run_queue_ref each).
CREATE OR REPLACE FUNCTION "run_lane_lapses"(p_lane text) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM runs r WHERE r.status = 'running' AND r.lease_until < clock_timestamp() AND r.lane = p_lane)
     AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.status = 'running' AND r.lease_until IS NULL AND r.lane = p_lane) THEN
    RETURN '[]'::jsonb;
  END IF;
  PERFORM run_lane_lock(p_lane);
  PERFORM run_lease_lapses_note(p_lane);
  RETURN run_lease_lapses_settle(p_lane);
END
$$;
