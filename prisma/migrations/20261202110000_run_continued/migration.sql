-- A started run says whether it has transcript entries of its own ('continued': it executed
-- before — parked and resumed, or its runner died), so that a new run, a teammate's next turn
-- too (whose session has entries of earlier turns), reads none of its entries.
CREATE OR REPLACE FUNCTION "run_queue_started"(p_id uuid) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT run_queue_ref(r) || jsonb_build_object(
      'origin', r.origin, 'session_id', r.session_id,
      'transcript_seq', (SELECT max(t.seq) FROM transcript_entries t WHERE t.session_id = r.session_id),
      'continued', EXISTS (SELECT 1 FROM transcript_entries t WHERE t.run_id = r.id),
      'fact_row', (SELECT to_jsonb(e) FROM platform_events e WHERE e.id = r.event_id AND e.workspace_id = r.workspace_id),
      'stop_requested', r.stop_requested,
      'paused', coalesce((SELECT s.agents_paused FROM workspace_settings s WHERE s.workspace_id = r.workspace_id), false))
    FROM runs r WHERE r.id = p_id
$$;
