-- What executing a started run needs (StartedRowSchema in libs/runs): its ref, its context
-- (origin, session, the activating fact, where the session's transcript stands, whether the run
-- has entries of its own — `continued`: it executed before, parked and resumed or its runner
-- died), the stop flags and how many times its lease lapsed (MAX_RUN_CONTINUATIONS caps it).
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
      'stop_requested', r.stop_requested, 'lease_lapses', r.lease_lapses,
      'paused', coalesce((SELECT s.agents_paused FROM workspace_settings s WHERE s.workspace_id = r.workspace_id), false));
END
$$;
