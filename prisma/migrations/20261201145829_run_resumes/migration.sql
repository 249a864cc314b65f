-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "resumes" INTEGER NOT NULL DEFAULT 0;

-- Hand-written (Prisma does not model functions and triggers). Parking and resuming: decisions 0009, 0016, 0026.

-- The one builder of `agent.run.<status>` facts, as in migration fact_outbox, with two changes:
-- `agent.run.awaiting_approval` carries the ids of the run's pending approvals (written before
-- the run parks, in the same transaction); and a run that went back in line (`resumes` > 0)
-- keys its facts `run:<id>:<status>:<resumes>`, so that its second `agent.run.started` is not
-- taken for a repeat of the first. Keys of a run never resumed are unchanged.
CREATE OR REPLACE FUNCTION "runs_status_fact"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  payload jsonb := jsonb_build_object('agentId', NEW.agent_id, 'agentVersion', NEW.agent_version, 'status', NEW.status, 'reason', NEW.reason);
BEGIN
  IF NEW.event_id IS NOT NULL THEN
    payload := payload || jsonb_build_object('eventId', NEW.event_id);
  END IF;
  IF NEW.status = 'awaiting_approval' THEN
    payload := payload || jsonb_build_object('approvalIds',
      (SELECT coalesce(jsonb_agg(a.id::text ORDER BY a.requested_at, a.id), '[]'::jsonb) FROM approvals a WHERE a.run_id = NEW.id AND a.status = 'pending'));
  END IF;
  INSERT INTO fact_outbox (id, workspace_id, kind, subject_type, subject_id, actor, payload, caused_by, idempotency_key, correlation_id)
  VALUES (
    switchyard_uuid_v7(), NEW.workspace_id,
    CASE NEW.status WHEN 'running' THEN 'agent.run.started' ELSE 'agent.run.' || NEW.status::text END,
    'run', NEW.id::text, '{"type": "system", "id": "switchyard"}'::jsonb, payload,
    jsonb_build_object('runId', NEW.id, 'agentId', NEW.agent_id, 'depth', NEW.depth + 1),
    'run:' || NEW.id || ':' || NEW.status || CASE WHEN NEW.resumes > 0 THEN ':' || NEW.resumes ELSE '' END,
    NEW.id::text);
  RETURN NULL;
END
$$;

-- A parked run back in its lane's line, at its original place (queued_at is kept), one resume more.
CREATE OR REPLACE FUNCTION "run_queue_resume"(p_run uuid) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_lane text;
BEGIN
  SELECT lane INTO v_lane FROM runs WHERE id = p_run;
  IF v_lane IS NULL THEN
    RETURN false;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('run-lane:' || v_lane, 0));
  UPDATE runs SET status = 'queued', resumes = resumes + 1 WHERE id = p_run AND status = 'awaiting_approval';
  RETURN FOUND;
END
$$;

-- Whether a run was executing an approved call when it stopped: the call's execution was
-- marked (approvals.execution_started_at) and its result is not in the transcript. Such a
-- run goes back in line rather than failing runner_lost, and its resumed loop answers the
-- call `tool_outcome_unknown` (decision 0026): the person approved work the model must hear of.
CREATE FUNCTION "run_in_approved_call"(r runs) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (
    SELECT 1 FROM approvals a
     WHERE a.run_id = r.id AND a.status = 'approved' AND a.execution_started_at IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM transcript_entries t
                        WHERE t.session_id = r.session_id AND t.run_id = r.id AND t.type = 'tool' AND t.content ->> 'toolCallId' = a.tool_call_id))
$$;

-- The claim of a lane, as in migration run_queue, except for lapsed leases: a run that was in
-- an approved call goes back in line (queued, its queued_at kept, one resume more); the
-- others fail runner_lost as before.
CREATE OR REPLACE FUNCTION "run_queue_claim_lane"(p_lane text, p_owner text, p_lease_ms int, p_limit int) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  lost jsonb;
  started jsonb := '[]'::jsonb;
  ids uuid[];
  cap int;
  live int;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('run-lane:' || p_lane, 0));
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
