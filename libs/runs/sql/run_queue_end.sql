-- Ends (or parks: awaiting_approval) a run its caller holds, lease cleared (its slot freed by the
-- runs trigger), then claims in the fair order (run_queue_claim_next) after recovering its lane's
-- lapsed leases, in one transaction. An ending of an agent's run takes no lane-wide lock
-- (decision 0054): other claims and endings of the lane commit beside it. A park, and any ending
-- in another lane, still takes the lane's lock before the run's row (approvals and teammates'
-- wakes serialize on it). `ended` is false when the run was no longer the caller's.
CREATE OR REPLACE FUNCTION "run_queue_end"(p_run uuid, p_owner text, p_status "RunStatus", p_reason text, p_outcome jsonb, p_error jsonb, p_lease_ms int, p_limit int)
  RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_lane text := run_lane_of(p_run);
  applied boolean;
  lost jsonb;
  ids uuid[];
BEGIN
  IF v_lane IS NULL THEN
    RETURN jsonb_build_object('ended', false, 'started', '[]'::jsonb, 'lost', '[]'::jsonb);
  END IF;
  IF p_status = 'awaiting_approval' OR v_lane NOT LIKE 'agent:%' THEN
    PERFORM run_lane_lock(v_lane);
  END IF;
  UPDATE runs SET status = p_status, reason = p_reason, outcome = coalesce(p_outcome, outcome), error = p_error,
         ended_at = CASE WHEN p_status = 'awaiting_approval' THEN NULL ELSE clock_timestamp() END,
         lease_owner = NULL, lease_until = NULL
   WHERE id = p_run AND status = 'running' AND lease_owner = p_owner;
  applied := FOUND;
  lost := run_lane_lapses(v_lane);
  -- Its own statement: what run_queue_claimed reads must see the runs just started.
  ids := run_queue_claim_next(p_owner, p_lease_ms, p_limit);
  RETURN run_queue_claimed(ids, lost) || jsonb_build_object('ended', applied);
END
$$;
