-- Whether a run was executing an approved call when it stopped: the call's execution was marked
-- (approvals.execution_started_at) and its result is not in the transcript. Such a run goes back
-- in line rather than failing runner_lost, and its resumed loop answers the call
-- `tool_outcome_unknown` (decision 0026): the person approved work the model must hear of.
CREATE OR REPLACE FUNCTION "run_in_approved_call"(r runs) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (
    SELECT 1 FROM approvals a
     WHERE a.run_id = r.id AND a.status = 'approved' AND a.execution_started_at IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM transcript_entries t
                        WHERE t.session_id = r.session_id AND t.run_id = r.id AND t.type = 'tool' AND t.content ->> 'toolCallId' = a.tool_call_id));
END
$$;
