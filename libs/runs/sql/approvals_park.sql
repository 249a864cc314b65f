-- Parks a run on approvals in one statement (decision 0026), so that the lane's lock is held
-- inside PostgreSQL only and the park costs one round trip: the pending rows of the run's calls
-- (a repeated park keeps the first rows), the facts the caller built for them — only those of
-- the rows that are new (their subject is the approval) — then the queue's park and its claim of
-- the lane (run_queue_end, whose runs trigger lists the pending approvals in the run's fact).
-- In a workspace whose setting `approvals` is `deny` it writes nothing and answers `deny`: the
-- caller denies the asks. A run its caller no longer holds raises, and nothing is written.
CREATE OR REPLACE FUNCTION "approvals_park"(
  f_ids uuid[], f_workspaces uuid[], f_kinds text[], f_subject_types text[], f_subject_ids text[], f_actors jsonb[], f_payloads jsonb[],
  f_caused_by jsonb[], f_keys text[], f_ts timestamptz[], f_correlations text[],
  p_run uuid, p_owner text, p_lease_ms int, p_limit int, p_rows jsonb)
  RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_new text[];
  v_park jsonb;
BEGIN
  IF (SELECT s.approvals FROM workspace_settings s JOIN runs r ON r.workspace_id = s.workspace_id WHERE r.id = p_run) = 'deny' THEN
    RETURN jsonb_build_object('deny', true);
  END IF;
  WITH inserted AS (
    INSERT INTO approvals (id, workspace_id, run_id, agent_id, agent_version, kind, tool_call_id, tool, arguments_preview, truncated, reason, status, requested_at, expires_at)
    SELECT t.id, t.workspace_id, p_run, t.agent_id, t.agent_version, t.kind, t.tool_call_id, t.tool, t.arguments_preview, t.truncated, t.reason, 'pending', t.requested_at, t.expires_at
      FROM jsonb_to_recordset(p_rows) AS t(id uuid, workspace_id uuid, agent_id uuid, agent_version int, kind text, tool_call_id text, tool jsonb,
                                           arguments_preview text, truncated boolean, reason text, requested_at timestamptz, expires_at timestamptz)
    ON CONFLICT (run_id, tool_call_id) DO NOTHING
    RETURNING id::text AS id)
  SELECT coalesce(array_agg(id), '{}') INTO v_new FROM inserted;
  INSERT INTO fact_outbox (id, workspace_id, kind, subject_type, subject_id, actor, payload, caused_by, idempotency_key, ts, correlation_id)
  SELECT * FROM unnest(f_ids, f_workspaces, f_kinds, f_subject_types, f_subject_ids, f_actors, f_payloads, f_caused_by, f_keys, f_ts, f_correlations)
         AS f(id, workspace_id, kind, subject_type, subject_id, actor, payload, caused_by, idempotency_key, ts, correlation_id)
   WHERE f.subject_id = ANY(v_new);
  v_park := run_queue_end(p_run, p_owner, 'awaiting_approval', NULL, NULL, NULL, p_lease_ms, p_limit);
  IF NOT (v_park->>'ended')::boolean THEN
    RAISE EXCEPTION 'the run is not this runner''s any more (its lease lapsed): not parked';
  END IF;
  RETURN v_park;
END
$$;
