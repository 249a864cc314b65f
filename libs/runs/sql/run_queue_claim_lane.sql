-- The claim of a lane, under its lock (decision 0009). VOLATILE PL/pgSQL: each statement reads a
-- fresh snapshot taken after the lock, so it counts the runs as the previous holder left them.
--   1. notes the lapsed leases (run_lease_lapses_note);
--   2. a lapsed run that was in an approved call goes back in line (queued, its queued_at kept,
--      one resume more: decision 0026); the other lapsed runs fail runner_lost;
--   3. starts the oldest queued runs (FIFO by queued_at, id) while fewer than the lane's
--      concurrency hold a lease, at most p_limit.
-- Returns {started: [run_queue_started…], lost: [run_queue_ref…]} (ClaimRowSchema in libs/runs).
CREATE OR REPLACE FUNCTION "run_queue_claim_lane"(p_lane text, p_owner text, p_lease_ms int, p_limit int) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  lost jsonb;
  started jsonb := '[]'::jsonb;
  ids uuid[];
  cap int;
  live int;
BEGIN
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
  cap := run_lane_concurrency(p_lane);
  SELECT count(*) INTO live FROM runs WHERE lane = p_lane AND status = 'running';
  IF p_limit > 0 AND live < cap THEN
    WITH claimed AS (
      UPDATE runs r SET status = 'running', started_at = clock_timestamp(), lease_owner = p_owner,
             lease_until = clock_timestamp() + p_lease_ms * interval '1 millisecond'
       WHERE r.id IN (SELECT q.id FROM runs q WHERE q.lane = p_lane AND q.status = 'queued'
                       ORDER BY q.queued_at, q.id LIMIT least(cap - live, p_limit))
         AND r.status = 'queued'
       RETURNING r.id, r.queued_at)
    SELECT array_agg(c.id ORDER BY c.queued_at, c.id) INTO ids FROM claimed c;
    IF ids IS NOT NULL THEN
      SELECT jsonb_agg(run_queue_started(t.id) ORDER BY t.ord) INTO started FROM unnest(ids) WITH ORDINALITY AS t(id, ord);
    END IF;
  END IF;
  RETURN jsonb_build_object('started', started, 'lost', lost);
END
$$;
