-- Trigger (AFTER INSERT and AFTER UPDATE OF status ON runs, except try runs: decision 0027): the
-- one builder of `agent.run.<status>` facts (RunFactPayloadSchema in libs/contracts). Every status
-- a run enters, whoever makes it, writes its fact to the outbox in the same transaction (decision
-- 0024). Caused by the run itself, one step deeper (an agent never wakes on its own runs). The
-- payload carries the run's origin type, its trigger's kind and subject, and — when it parks —
-- the ids of its pending approvals (written before the park, in the same transaction). Keyed
-- `run:<id>:<status>`, with `:<resumes>` once the run went back in line, so that its second
-- `agent.run.started` is not taken for a repeat of the first.
CREATE OR REPLACE FUNCTION "runs_status_fact"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  payload jsonb := jsonb_build_object('agentId', NEW.agent_id, 'agentVersion', NEW.agent_version, 'status', NEW.status, 'reason', NEW.reason, 'origin', NEW.origin_type);
BEGIN
  IF NEW.event_id IS NOT NULL THEN
    payload := payload || jsonb_build_object('eventId', NEW.event_id);
  END IF;
  IF NEW.event_kind IS NOT NULL AND NEW.event_subject IS NOT NULL THEN
    payload := payload || jsonb_build_object('trigger', jsonb_build_object('kind', NEW.event_kind, 'subject', NEW.event_subject));
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
