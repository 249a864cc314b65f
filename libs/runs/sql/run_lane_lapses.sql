-- The recovery of a lane's lapsed leases (decision 0009), made by the claims of that lane. Under
-- the lane's lock, taken only when a lapsed lease is there (decision 0054: a claim of a lane whose
-- runners are alive takes no lane-wide lock):
--   1. notes the lapsed leases (run_lease_lapses_note);
--   2. a lapsed run that was in an approved call goes back in line (queued, its queued_at kept,
--      one resume more: decision 0026); the other lapsed runs fail runner_lost.
-- Their slots are freed by the runs trigger (run_lane_slot_release). Returns the runs failed
-- lost (run_queue_ref each).
CREATE OR REPLACE FUNCTION "run_lane_lapses"(p_lane text) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  lost jsonb;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM runs r WHERE r.status = 'running' AND r.lease_until < clock_timestamp() AND r.lane = p_lane)
     AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.status = 'running' AND r.lease_until IS NULL AND r.lane = p_lane) THEN
    RETURN '[]'::jsonb;
  END IF;
  PERFORM run_lane_lock(p_lane);
  PERFORM run_lease_lapses_note(p_lane);
  UPDATE runs r SET status = 'queued', resumes = r.resumes + 1, lease_owner = NULL, lease_until = NULL
   WHERE r.lane = p_lane AND r.status = 'running' AND (r.lease_until IS NULL OR r.lease_until < clock_timestamp()) AND run_in_approved_call(r);
  WITH failed AS (
    UPDATE runs r SET status = 'failed', reason = 'runner_lost', ended_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL,
           error = '{"code": "runner_lost", "message": "the runner executing this run stopped (or lost its lease) before it ended"}'::jsonb
     WHERE r.lane = p_lane AND r.status = 'running' AND (r.lease_until IS NULL OR r.lease_until < clock_timestamp())
     RETURNING r.*)
  SELECT coalesce(jsonb_agg(run_queue_ref(f)), '[]'::jsonb) INTO lost FROM failed f;
  RETURN lost;
END
$$;
