-- The lock of a lane (decision 0009), held until the transaction ends. Since decision 0054 an
-- agent's lane is claimed and ended without it (its slots are rows: run_lane_start); it still
-- serializes what reads a lane as a whole: a teammate's wake or stop, a park, a resume, an
-- approval's decision and the recovery of lapsed leases (run_lane_lapses).
CREATE OR REPLACE FUNCTION "run_lane_lock"(p_lane text) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(run_lane_key(p_lane));
END
$$;
