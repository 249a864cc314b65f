-- AlterTable (lane backfilled before it becomes NOT NULL; running rows get a lease that has
-- lapsed already: the runners that started them kept no lease)
ALTER TABLE "runs" ADD COLUMN     "lane" TEXT,
ADD COLUMN     "lease_owner" TEXT,
ADD COLUMN     "lease_until" TIMESTAMPTZ(3);

UPDATE "runs" SET "lane" = 'agent:' || "agent_id";
UPDATE "runs" SET "lease_until" = now() WHERE "status" = 'running';
ALTER TABLE "runs" ALTER COLUMN "lane" SET NOT NULL;

-- CreateIndex
CREATE INDEX "runs_lane_status_queued_at_id_idx" ON "runs"("lane", "status", "queued_at", "id");

-- CreateIndex
CREATE INDEX "runs_status_lease_until_idx" ON "runs"("status", "lease_until");

-- CreateIndex
CREATE INDEX "runs_status_queued_at_idx" ON "runs"("status", "queued_at");

-- Hand-written (Prisma does not model functions and triggers). The run queue: decision 0009.

-- A run written without a lane (a tool or test that predates it) is in its agent's lane.
CREATE FUNCTION "runs_default_lane"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.lane IS NULL THEN
    NEW.lane := 'agent:' || NEW.agent_id;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER "runs_default_lane" BEFORE INSERT ON "runs"
  FOR EACH ROW EXECUTE FUNCTION "runs_default_lane"();

-- How many runs of a lane may hold a lease at once: `flow.concurrency` of the agent's latest
-- version (1 to 10); 1 for any other lane.
CREATE FUNCTION "run_lane_concurrency"(p_lane text) RETURNS int LANGUAGE plpgsql STABLE AS $$
DECLARE
  cap int;
BEGIN
  IF p_lane LIKE 'agent:%' THEN
    SELECT (v.spec -> 'flow' ->> 'concurrency')::int INTO cap
      FROM agents a JOIN agent_versions v ON v.agent_id = a.id AND v.version = a.latest_version
     WHERE a.id = substr(p_lane, 7)::uuid;
  END IF;
  RETURN least(greatest(coalesce(cap, 1), 1), 10);
END
$$;

-- What the runner needs of a run: its ref (with the workspace slug).
CREATE FUNCTION "run_queue_ref"(r runs) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('id', r.id, 'workspace_id', r.workspace_id, 'slug', w.slug, 'agent_id', r.agent_id,
    'agent_version', r.agent_version, 'status', r.status, 'event_id', r.event_id, 'depth', r.depth)
    FROM workspaces w WHERE w.id = r.workspace_id
$$;

-- What executing a started run needs: its ref, its context (origin, session, the activating
-- fact, where the session's transcript stands) and the stop flags.
CREATE FUNCTION "run_queue_started"(p_id uuid) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT run_queue_ref(r) || jsonb_build_object(
      'origin', r.origin, 'session_id', r.session_id,
      'transcript_seq', (SELECT max(t.seq) FROM transcript_entries t WHERE t.session_id = r.session_id),
      'fact_row', (SELECT to_jsonb(e) FROM platform_events e WHERE e.id = r.event_id AND e.workspace_id = r.workspace_id),
      'stop_requested', r.stop_requested,
      'paused', coalesce((SELECT s.agents_paused FROM workspace_settings s WHERE s.workspace_id = r.workspace_id), false))
    FROM runs r WHERE r.id = p_id
$$;

-- The claim of a lane, under its lock. VOLATILE PL/pgSQL: each statement reads a fresh
-- snapshot taken after the lock, so it counts the runs as the previous holder left them.
-- Fails the runs whose lease lapsed (runner_lost), then starts the oldest queued runs (FIFO by
-- queued_at, id) while fewer than the lane's concurrency hold a lease, at most p_limit.
-- Returns {started: [run_queue_started…], lost: [run_queue_ref…]}.
CREATE FUNCTION "run_queue_claim_lane"(p_lane text, p_owner text, p_lease_ms int, p_limit int) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  lost jsonb;
  started jsonb := '[]'::jsonb;
  ids uuid[];
  cap int;
  live int;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('run-lane:' || p_lane, 0));
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

-- A job's claim: the lane of the run it names.
CREATE FUNCTION "run_queue_claim"(p_run uuid, p_owner text, p_lease_ms int, p_limit int) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_lane text;
BEGIN
  SELECT lane INTO v_lane FROM runs WHERE id = p_run;
  IF v_lane IS NULL THEN
    RETURN jsonb_build_object('started', '[]'::jsonb, 'lost', '[]'::jsonb);
  END IF;
  RETURN run_queue_claim_lane(v_lane, p_owner, p_lease_ms, p_limit);
END
$$;

-- Ends (or parks: awaiting_approval) a run its caller holds, lease cleared, then claims its
-- lane, in one transaction. The lane's lock is taken before the run's row, as a claim takes
-- them. `ended` is false when the run was no longer the caller's (ended by someone else).
CREATE FUNCTION "run_queue_end"(p_run uuid, p_owner text, p_status "RunStatus", p_reason text, p_outcome jsonb, p_error jsonb, p_lease_ms int, p_limit int)
  RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_lane text;
  applied boolean;
BEGIN
  SELECT lane INTO v_lane FROM runs WHERE id = p_run;
  IF v_lane IS NULL THEN
    RETURN jsonb_build_object('ended', false, 'started', '[]'::jsonb, 'lost', '[]'::jsonb);
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('run-lane:' || v_lane, 0));
  UPDATE runs SET status = p_status, reason = p_reason, outcome = coalesce(p_outcome, outcome), error = p_error,
         ended_at = CASE WHEN p_status = 'awaiting_approval' THEN NULL ELSE clock_timestamp() END,
         lease_owner = NULL, lease_until = NULL
   WHERE id = p_run AND status = 'running' AND lease_owner = p_owner;
  applied := FOUND;
  RETURN run_queue_claim_lane(v_lane, p_owner, p_lease_ms, p_limit) || jsonb_build_object('ended', applied);
END
$$;

-- A parked run back in its lane's line, at its original place (queued_at is kept).
CREATE FUNCTION "run_queue_resume"(p_run uuid) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_lane text;
BEGIN
  SELECT lane INTO v_lane FROM runs WHERE id = p_run;
  IF v_lane IS NULL THEN
    RETURN false;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('run-lane:' || v_lane, 0));
  UPDATE runs SET status = 'queued' WHERE id = p_run AND status = 'awaiting_approval';
  RETURN FOUND;
END
$$;
