-- Ends (or parks: awaiting_approval) a run its caller holds, lease cleared, then claims its lane,
-- in one transaction. The lane's lock is taken before the run's row, as a claim takes them.
-- `ended` is false when the run was no longer the caller's (ended by someone else).
CREATE OR REPLACE FUNCTION "run_queue_end"(p_run uuid, p_owner text, p_status "RunStatus", p_reason text, p_outcome jsonb, p_error jsonb, p_lease_ms int, p_limit int)
  RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_lane text := run_lane_of(p_run);
  applied boolean;
BEGIN
  IF v_lane IS NULL THEN
    RETURN jsonb_build_object('ended', false, 'started', '[]'::jsonb, 'lost', '[]'::jsonb);
  END IF;
  PERFORM run_lane_lock(v_lane);
  UPDATE runs SET status = p_status, reason = p_reason, outcome = coalesce(p_outcome, outcome), error = p_error,
         ended_at = CASE WHEN p_status = 'awaiting_approval' THEN NULL ELSE clock_timestamp() END,
         lease_owner = NULL, lease_until = NULL
   WHERE id = p_run AND status = 'running' AND lease_owner = p_owner;
  applied := FOUND;
  RETURN run_queue_claim_lane(v_lane, p_owner, p_lease_ms, p_limit) || jsonb_build_object('ended', applied);
END
$$;
