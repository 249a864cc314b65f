-- The lock of a lane if nobody holds it (true), else false at once: a claim across lanes
-- (run_queue_claim_next) passes by a teammate's lane that a wake or a stop is changing.
CREATE OR REPLACE FUNCTION "run_lane_try_lock"(p_lane text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN pg_try_advisory_xact_lock(run_lane_key(p_lane));
END
$$;
