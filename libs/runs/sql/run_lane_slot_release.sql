-- Trigger (AFTER UPDATE OF status ON runs when a run leaves `running`, AFTER DELETE of a running
-- run): the run's lane slot is free again (decision 0054). Whatever ends, parks, puts back or
-- fails a run frees its slot in the same transaction, so a slot is held exactly while its run runs.
CREATE OR REPLACE FUNCTION "run_lane_slot_release"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE run_lane_slots SET run_id = NULL WHERE run_id = OLD.id;
  RETURN NULL;
END
$$;
