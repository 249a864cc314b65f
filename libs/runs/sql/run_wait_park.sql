-- Parks a run this runner holds on a wait for a fact (decision 0055): `awaiting_event`, its lease
-- cleared (it holds no slot), the wait row written pending, then the lane's next runs claimed —
-- in the transaction that ran run_wait_check first. Like a park on approvals, `ended_at` stays
-- null and the lane's lock is taken before the run's row. `ended` is false when the run was no
-- longer the caller's; then no wait is written. The deadline counts from the transaction's start,
-- as `created_at` does, so that the timeout a resolved wait reports is exactly the one asked.
CREATE OR REPLACE FUNCTION "run_wait_park"(p_run uuid, p_owner text, p_wait jsonb, p_lease_ms int, p_limit int)
  RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_lane text := run_lane_of(p_run);
  applied boolean;
BEGIN
  IF v_lane IS NULL THEN
    RETURN jsonb_build_object('ended', false, 'started', '[]'::jsonb, 'lost', '[]'::jsonb);
  END IF;
  PERFORM run_lane_lock(v_lane);
  UPDATE runs SET status = 'awaiting_event', lease_owner = NULL, lease_until = NULL
   WHERE id = p_run AND status = 'running' AND lease_owner = p_owner;
  applied := FOUND;
  IF applied THEN
    INSERT INTO run_waits (id, run_id, workspace_id, tool_call_id, kind, filter, after_seq, status, deadline)
    SELECT (p_wait->>'id')::uuid, p_run, r.workspace_id, p_wait->>'toolCallId', p_wait->>'kind', p_wait->'filter',
           (p_wait->>'afterSeq')::bigint, 'pending',
           now() + (p_wait->>'timeoutMs')::bigint * interval '1 millisecond'
      FROM runs r WHERE r.id = p_run
    ON CONFLICT (run_id, tool_call_id) DO NOTHING;
  END IF;
  RETURN run_queue_claim_lane(v_lane, p_owner, p_lease_ms, p_limit) || jsonb_build_object('ended', applied);
END
$$;
