-- The status facts of a run carry its origin's type (`origin`, RunFactPayloadSchema): a consumer
-- that acts on one kind of run (a delegation's return, a live view's row) knows which it is
-- without reading the run.
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
