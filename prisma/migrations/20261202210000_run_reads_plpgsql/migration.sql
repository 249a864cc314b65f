-- Hand-written (Prisma does not model functions). The run queue's three reads, as in
-- migrations run_queue, run_resumes and run_continued, with the same results, in PL/pgSQL:
-- PostgreSQL plans the body of a SQL function that it cannot inline anew on every statement
-- that calls it, and keeps a PL/pgSQL function's plans for the connection's life. Every claim
-- calls run_queue_started for each run it starts, and run_queue_ref for each it finds lost.

CREATE OR REPLACE FUNCTION "run_queue_ref"(r runs) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_slug text;
BEGIN
  SELECT w.slug INTO v_slug FROM workspaces w WHERE w.id = r.workspace_id;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  RETURN jsonb_build_object('id', r.id, 'workspace_id', r.workspace_id, 'slug', v_slug, 'agent_id', r.agent_id,
    'agent_version', r.agent_version, 'status', r.status, 'event_id', r.event_id, 'depth', r.depth);
END
$$;

CREATE OR REPLACE FUNCTION "run_queue_started"(p_id uuid) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
  r runs;
BEGIN
  SELECT * INTO r FROM runs WHERE id = p_id;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  RETURN run_queue_ref(r) || jsonb_build_object(
      'origin', r.origin, 'session_id', r.session_id,
      'transcript_seq', (SELECT max(t.seq) FROM transcript_entries t WHERE t.session_id = r.session_id),
      'continued', EXISTS (SELECT 1 FROM transcript_entries t WHERE t.run_id = r.id),
      'fact_row', (SELECT to_jsonb(e) FROM platform_events e WHERE e.id = r.event_id AND e.workspace_id = r.workspace_id),
      'stop_requested', r.stop_requested,
      'paused', coalesce((SELECT s.agents_paused FROM workspace_settings s WHERE s.workspace_id = r.workspace_id), false));
END
$$;

CREATE OR REPLACE FUNCTION "run_in_approved_call"(r runs) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (
    SELECT 1 FROM approvals a
     WHERE a.run_id = r.id AND a.status = 'approved' AND a.execution_started_at IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM transcript_entries t
                        WHERE t.session_id = r.session_id AND t.run_id = r.id AND t.type = 'tool' AND t.content ->> 'toolCallId' = a.tool_call_id));
END
$$;
