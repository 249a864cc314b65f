-- Whether a run stopped inside a call that is not safe to repeat (decision 0051): the loop records
-- a `write_call_started` notice, flushed before the call, for every call of a tool that may change
-- something, and the call's result comes after it; a notice with no later result of its call means
-- the call may have acted, or not. Such a run ends runner_lost rather than repeat the call.
CREATE OR REPLACE FUNCTION "run_in_write_call"(r runs) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (
    SELECT 1 FROM transcript_entries n
     WHERE n.session_id = r.session_id AND n.run_id = r.id AND n.type = 'notice' AND n.content ->> 'code' = 'write_call_started'
       AND NOT EXISTS (SELECT 1 FROM transcript_entries t
                        WHERE t.session_id = r.session_id AND t.run_id = r.id AND t.type = 'tool' AND t.seq > n.seq
                          AND t.content ->> 'toolCallId' = n.content ->> 'toolCallId'));
END
$$;
