-- The lock of a lane (decision 0009), held until the transaction ends. Every change to the runs of
-- a lane — a claim, an ending, a park, a resume, a teammate's wake or stop — takes it first, so a
-- lane's changes are serial and each reads the runs as the previous one left them. The one place
-- the lock's key is spelled.
CREATE OR REPLACE FUNCTION "run_lane_lock"(p_lane text) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('run-lane:' || p_lane, 0));
END
$$;
