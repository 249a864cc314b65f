-- A parked run back in its lane's line, at its original place (queued_at is kept), one resume
-- more (its facts are keyed by `resumes`: runs_status_fact).
CREATE OR REPLACE FUNCTION "run_queue_resume"(p_run uuid) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_lane text := run_lane_of(p_run);
BEGIN
  IF v_lane IS NULL THEN
    RETURN false;
  END IF;
  PERFORM run_lane_lock(v_lane);
  UPDATE runs SET status = 'queued', resumes = resumes + 1 WHERE id = p_run AND status = 'awaiting_approval';
  RETURN FOUND;
END
$$;
