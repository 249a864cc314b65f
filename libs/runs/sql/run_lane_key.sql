-- The advisory lock key of a lane (decision 0009): the one place it is spelled. run_lane_lock
-- waits for it; run_lane_try_lock takes it only when free (a fair claim passes a busy lane by).
CREATE OR REPLACE FUNCTION "run_lane_key"(p_lane text) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN hashtextextended('run-lane:' || p_lane, 0);
END
$$;
