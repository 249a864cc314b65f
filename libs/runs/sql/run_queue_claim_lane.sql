-- The claim of a lane, under its lock (decision 0009). VOLATILE PL/pgSQL: each statement reads a
-- fresh snapshot taken after the lock, so it counts the runs as the previous holder left them.
--   1. notes the lapsed leases (run_lease_lapses_note);
--   2. settles the lapsed runs (run_lease_lapses_settle): back in line, to be continued from
--      their last stored step, or failed runner_lost inside a call not safe to repeat (decision 0051);
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
  lost := run_lease_lapses_settle(p_lane);
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
