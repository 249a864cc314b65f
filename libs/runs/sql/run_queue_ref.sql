-- What the runner needs of a run: its ref, with the workspace's slug (RunRefRowSchema in
-- libs/runs parses it). PL/pgSQL, whose plans a connection keeps (decision 0017): every claim
-- calls it for each run it finds lost.
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
