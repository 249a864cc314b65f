-- A lease found lapsed is noted (run_lease_lapses) for the event-log's ops watcher, which records
-- one `platform.runner_lost` per runner and workspace (decision 0038). Called by the claim that
-- takes the lapsed runs over, under the lane's lock, before it decides what becomes of them
-- (failed runner_lost, or back in line): it records that the runner was lost, not how its runs
-- ended. Its condition is the claim's own for a lapsed lease.
CREATE OR REPLACE FUNCTION "run_lease_lapses_note"(p_lane text) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  INSERT INTO run_lease_lapses (run_id, workspace_id, agent_id, lane, lease_owner, lease_until)
  SELECT r.id, r.workspace_id, r.agent_id, r.lane, r.lease_owner, r.lease_until FROM runs r
   WHERE r.lane = p_lane AND r.status = 'running' AND r.lease_owner IS NOT NULL
     AND (r.lease_until IS NULL OR r.lease_until < clock_timestamp());
END
$$;
