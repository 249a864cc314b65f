-- The lane of a run; NULL when there is no such run. A lane never changes once the run is written,
-- so reading it before taking the lane's lock is safe.
CREATE OR REPLACE FUNCTION "run_lane_of"(p_run uuid) RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_lane text;
BEGIN
  SELECT lane INTO v_lane FROM runs WHERE id = p_run;
  RETURN v_lane;
END
$$;
