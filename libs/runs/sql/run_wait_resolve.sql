-- Resolves a pending wait once (decision 0055) and puts its run back in its lane's line, at its
-- original place, one resume more: `matched` with the fact, or `timed_out` (only once its deadline
-- passed, by the database's clock). Under the lane's lock, as every change of a parked run; the
-- wait's conditional update is what makes a second resolution (another matcher replica, a fact
-- and the timeout at once, a redelivered fact) a no-op. Returns the run when it was resumed.
-- The kill switch holds the resume: while the run's workspace is paused (`agents_paused`) the
-- wait is resolved but the run stays `awaiting_event`, and the approvals service resumes it once
-- the workspace is unpaused (resumeHeldWaits). The settings row is read FOR SHARE: an
-- unpause committing meanwhile is waited for and seen, and one that starts later waits for this
-- commit, so the unpause's resume always sees this wait resolved.
CREATE OR REPLACE FUNCTION "run_wait_resolve"(p_wait uuid, p_status text, p_fact jsonb)
  RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_run uuid;
  v_lane text;
  v_resumed boolean;
  v_paused boolean;
  v_row runs%ROWTYPE;
BEGIN
  SELECT w.run_id INTO v_run FROM run_waits w WHERE w.id = p_wait;
  v_lane := run_lane_of(v_run);
  IF v_lane IS NULL THEN
    RETURN jsonb_build_object('resolved', false);
  END IF;
  PERFORM run_lane_lock(v_lane);
  UPDATE run_waits SET status = p_status, fact = p_fact, resolved_at = clock_timestamp()
   WHERE id = p_wait AND status = 'pending' AND (p_status = 'matched' OR deadline <= clock_timestamp());
  IF NOT FOUND THEN
    RETURN jsonb_build_object('resolved', false);
  END IF;
  SELECT s.agents_paused INTO v_paused FROM workspace_settings s
   WHERE s.workspace_id = (SELECT w.workspace_id FROM run_waits w WHERE w.id = p_wait) FOR SHARE;
  UPDATE runs SET status = 'queued', resumes = resumes + 1
   WHERE id = v_run AND status = 'awaiting_event' AND NOT coalesce(v_paused, false)
  RETURNING * INTO v_row;
  v_resumed := FOUND;
  RETURN jsonb_build_object('resolved', true, 'resumed', v_resumed, 'runId', v_run,
                            'workspaceId', v_row.workspace_id, 'agentId', v_row.agent_id);
END
$$;
