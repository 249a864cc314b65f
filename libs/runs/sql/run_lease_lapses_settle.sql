-- What becomes of the runs of a lane whose lease lapsed (their runner died or stopped renewing),
-- under the lane's lock, after run_lease_lapses_note (decision 0051). A run goes back in line
-- (queued, its queued_at kept, one resume and one lease lapse more: runs_status_fact; the runner
-- fails it continuation_limit past MAX_RUN_CONTINUATIONS lapses) and the next claim continues it
-- from its last stored step — unless it stopped inside a call that is not safe to repeat
-- (run_in_write_call), which fails it runner_lost. A run in an approved call goes back in line
-- too: its resumed loop answers the call tool_outcome_unknown (decision 0026).
-- Returns the failed runs' refs (run_queue_ref), for the claim's `lost`.
CREATE OR REPLACE FUNCTION "run_lease_lapses_settle"(p_lane text) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  lost jsonb;
BEGIN
  UPDATE runs r SET status = 'queued', resumes = r.resumes + 1, lease_lapses = r.lease_lapses + 1, lease_owner = NULL, lease_until = NULL
   WHERE r.lane = p_lane AND r.status = 'running' AND (r.lease_until IS NULL OR r.lease_until < clock_timestamp())
     AND (run_in_approved_call(r) OR NOT run_in_write_call(r));
  WITH failed AS (
    UPDATE runs r SET status = 'failed', reason = 'runner_lost', ended_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL,
           error = '{"code": "runner_lost", "message": "the runner executing this run stopped (or lost its lease) during a call that is not safe to repeat: it may or may not have taken effect"}'::jsonb
     WHERE r.lane = p_lane AND r.status = 'running' AND (r.lease_until IS NULL OR r.lease_until < clock_timestamp())
     RETURNING r.*)
  SELECT coalesce(jsonb_agg(run_queue_ref(f)), '[]'::jsonb) INTO lost FROM failed f;
  RETURN lost;
END
$$;
