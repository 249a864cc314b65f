-- How many runs of a lane may hold a lease at once: `flow.concurrency` of the version the agent's runs use (its pin, else its latest)
-- (1 to 1000) for an agent's lane; 1 for any other lane.
CREATE OR REPLACE FUNCTION "run_lane_concurrency"(p_lane text) RETURNS int LANGUAGE plpgsql STABLE AS $$
DECLARE
  cap int;
BEGIN
  IF p_lane LIKE 'agent:%' THEN
    SELECT (v.spec -> 'flow' ->> 'concurrency')::int INTO cap
      FROM agents a JOIN agent_versions v ON v.agent_id = a.id AND v.version = COALESCE(a.pinned_version, a.latest_version)
     WHERE a.id = substr(p_lane, 7)::uuid;
  END IF;
  RETURN least(greatest(coalesce(cap, 1), 1), 1000);
END
$$;
