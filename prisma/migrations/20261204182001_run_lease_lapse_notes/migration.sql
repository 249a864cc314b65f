-- Hand-written migration. Runs as one transaction (all statements in one query):
-- CREATE INDEX CONCURRENTLY and other non-transactional statements cannot be used.
-- Decision 0036: a lease found lapsed is noted (run_lease_lapses) for the event-log's ops watcher,
-- which records one `platform.runner_lost` per runner and workspace. The note is taken by the
-- claim that takes the lapsed runs over, under the lane's lock, before it decides what becomes of
-- them (failed runner_lost, or back in line): it records that the runner was lost, not how its
-- runs ended. Its condition is the claim's own for a lapsed lease. PL/pgSQL, whose plans a
-- connection keeps (decision 0017).
CREATE FUNCTION "run_lease_lapses_note"(p_lane text) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  INSERT INTO run_lease_lapses (run_id, workspace_id, agent_id, lane, lease_owner, lease_until)
  SELECT r.id, r.workspace_id, r.agent_id, r.lane, r.lease_owner, r.lease_until FROM runs r
   WHERE r.lane = p_lane AND r.status = 'running' AND r.lease_owner IS NOT NULL
     AND (r.lease_until IS NULL OR r.lease_until < clock_timestamp());
END
$$;

-- The claim of a lane, as in migration run_resumes, with the note of its lapsed leases
-- (the one line after the lock).
CREATE OR REPLACE FUNCTION "run_queue_claim_lane"(p_lane text, p_owner text, p_lease_ms int, p_limit int) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  lost jsonb;
  started jsonb := '[]'::jsonb;
  ids uuid[];
  cap int;
  live int;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('run-lane:' || p_lane, 0));
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
