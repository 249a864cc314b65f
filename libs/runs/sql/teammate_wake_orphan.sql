-- A teammate's mailbox found open with no turn to read it (decision 0035): its poster died between
-- the post that woke it and teammate_wake, or a turn that left messages for the next died before
-- queueing it. Under the lane's lock, queue the next turn unless one is queued, running or parked.
-- Returns the new run's id, 'live' (a turn holds the mailbox) or 'gone' (no such live teammate).
-- A wake nobody made has no causation.
CREATE OR REPLACE FUNCTION "teammate_wake_orphan"(p_session uuid, p_run uuid)
RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_lane text := 'session:' || p_session::text;
  v_workspace uuid;
  v_run uuid;
BEGIN
  SELECT workspace_id INTO v_workspace FROM teammates WHERE session_id = p_session AND stopped_at IS NULL;
  IF NOT FOUND THEN RETURN 'gone'; END IF;
  PERFORM run_lane_lock(v_lane);
  IF EXISTS (SELECT 1 FROM runs WHERE lane = v_lane AND status IN ('queued', 'running', 'awaiting_approval', 'awaiting_event')) THEN RETURN 'live'; END IF;
  v_run := teammate_wake(v_workspace, p_session, p_run, NULL, 0);
  RETURN COALESCE(v_run::text, 'gone');
END;
$$;
