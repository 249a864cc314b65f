-- Trigger (BEFORE INSERT ON runs): a run written without a lane is in its agent's lane,
-- `agent:<agent id>`. Trigger runs and manual runs rely on it; a teammate's turn
-- (`session:<session id>`) and a try (`try:<run id>`) name their lane.
CREATE OR REPLACE FUNCTION "runs_default_lane"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.lane IS NULL THEN
    NEW.lane := 'agent:' || NEW.agent_id;
  END IF;
  RETURN NEW;
END
$$;
