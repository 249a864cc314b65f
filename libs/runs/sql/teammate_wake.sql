-- A teammate's wake (decision 0035): under its lane's lock, queue the teammate's next turn
-- (lane `session:<session id>`) unless one is queued already, so any number of wakes while a turn
-- waits coalesce into that one turn. Returns the new run's id, or NULL (a turn was queued
-- already, or the teammate is stopped or gone). A wake by another agent's run carries its
-- causation (`p_caused_by`, depth + 1): the depth cap applies to teams. Its `agent.run.queued`
-- fact is recorded by the runs insert trigger, in this transaction.
CREATE OR REPLACE FUNCTION "teammate_wake"(p_workspace uuid, p_session uuid, p_run uuid, p_caused_by jsonb, p_depth int)
RETURNS uuid LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_lane text := 'session:' || p_session::text;
  v_mate teammates%ROWTYPE;
  v_version int;
BEGIN
  PERFORM run_lane_lock(v_lane);
  SELECT * INTO v_mate FROM teammates WHERE workspace_id = p_workspace AND session_id = p_session AND stopped_at IS NULL;
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF EXISTS (SELECT 1 FROM runs WHERE lane = v_lane AND status = 'queued') THEN RETURN NULL; END IF;
  -- The version runs use: the pin, else the latest (decision 0046).
  SELECT COALESCE(pinned_version, latest_version) INTO v_version FROM agents WHERE id = v_mate.agent_id AND workspace_id = p_workspace AND deleted_at IS NULL;
  IF NOT FOUND THEN RETURN NULL; END IF;
  INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, caused_by, depth, session_id, lane, queued_at)
  VALUES (p_run, p_workspace, v_mate.agent_id, v_version, 'teammate',
          jsonb_build_object('type', 'teammate', 'teammateId', v_mate.id, 'name', v_mate.name),
          'queued', p_caused_by, p_depth, p_session, v_lane, clock_timestamp());
  RETURN p_run;
END;
$$;
