-- The first step of a wait's park (decision 0055): takes the workspace's seq row FOR SHARE, then
-- returns the facts recorded after the wait's seq. The share lock is what makes a wake-up
-- impossible to lose: a fact's append holds that row FOR UPDATE until it commits, so either the
-- append committed first (this function waits for it, and its query, a later statement with a
-- fresh snapshot, returns the fact), or it waits for the park's transaction to commit, and the
-- matcher, which resolves waits only after a fact is committed, then sees the pending wait.
-- The caller runs it, then run_wait_park, in one transaction.
CREATE OR REPLACE FUNCTION "run_wait_check"(p_workspace uuid, p_after_seq bigint, p_limit int)
  RETURNS TABLE (id uuid, seq bigint, kind text, subject_type text, subject_id text, actor jsonb, stated_actor jsonb, payload jsonb, caused_by jsonb,
                 idempotency_key text, ts timestamptz)
  LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM 1 FROM workspace_event_seq s WHERE s.workspace_id = p_workspace FOR SHARE;
  RETURN QUERY
    SELECT e.id, e.seq, e.kind, e.subject_type, e.subject_id, e.actor, e.stated_actor, e.payload, e.caused_by, e.idempotency_key, e.ts
      FROM platform_events e
     WHERE e.workspace_id = p_workspace AND e.seq > p_after_seq
     ORDER BY e.seq LIMIT p_limit;
END
$$;
