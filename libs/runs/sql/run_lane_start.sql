-- Starts up to p_limit of a lane's oldest queued runs (decision 0054), without a lane-wide lock:
-- the lane has `concurrency` slot rows (run_lane_slots, made on first use), and a run starts only
-- in a free slot this statement locked (FOR UPDATE SKIP LOCKED), so claims and endings of one lane
-- commit side by side and never start more runs than it has slots. Slots are locked before runs:
-- whoever holds slots takes the oldest queued runs, so the runs started are the lane's oldest.
-- A lane other than an agent's keeps its lock (a teammate's wake coalesces under it); a claim
-- passes it by while someone else holds it. Returns the started runs' ids, FIFO.
CREATE OR REPLACE FUNCTION "run_lane_start"(p_lane text, p_owner text, p_lease_ms int, p_limit int) RETURNS uuid[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  cap int;
  v_want int;
  v_over int;
  v_slots int[];
  v_runs uuid[];
BEGIN
  IF p_limit <= 0 THEN RETURN '{}'; END IF;
  IF p_lane NOT LIKE 'agent:%' AND NOT run_lane_try_lock(p_lane) THEN RETURN '{}'; END IF;
  -- Ordered as the lane's index is, so that even a generic plan reads the lane's first runs only.
  SELECT count(*) INTO v_want FROM (SELECT 1 FROM runs q WHERE q.lane = p_lane AND q.status = 'queued' ORDER BY q.queued_at, q.id LIMIT p_limit) q;
  IF v_want = 0 THEN RETURN '{}'; END IF;
  cap := run_lane_concurrency(p_lane);
  IF NOT EXISTS (SELECT 1 FROM run_lane_slots s WHERE s.lane = p_lane AND s.slot = cap) THEN
    INSERT INTO run_lane_slots (lane, slot) SELECT p_lane, n FROM generate_series(1, cap) AS n ON CONFLICT DO NOTHING;
  END IF;
  -- A lowered concurrency: runs still in slots beyond it count against it until they end.
  SELECT count(*) INTO v_over FROM run_lane_slots s WHERE s.lane = p_lane AND s.slot > cap AND s.run_id IS NOT NULL;
  IF v_over > 0 THEN
    v_want := least(v_want, cap - v_over - (SELECT count(*) FROM run_lane_slots s WHERE s.lane = p_lane AND s.slot <= cap AND s.run_id IS NOT NULL)::int);
    IF v_want <= 0 THEN RETURN '{}'; END IF;
  END IF;
  SELECT array_agg(f.slot ORDER BY f.slot) INTO v_slots FROM (
    SELECT s.slot FROM run_lane_slots s WHERE s.lane = p_lane AND s.slot <= cap AND s.run_id IS NULL
     ORDER BY s.slot LIMIT v_want FOR UPDATE SKIP LOCKED) f;
  IF v_slots IS NULL THEN RETURN '{}'; END IF;
  SELECT array_agg(o.id ORDER BY o.queued_at, o.id) INTO v_runs FROM (
    SELECT q.id, q.queued_at FROM runs q WHERE q.lane = p_lane AND q.status = 'queued'
     ORDER BY q.queued_at, q.id LIMIT cardinality(v_slots) FOR UPDATE SKIP LOCKED) o;
  IF v_runs IS NULL THEN RETURN '{}'; END IF;
  UPDATE run_lane_slots s SET run_id = t.id
    FROM unnest(v_runs, v_slots[1:cardinality(v_runs)]) AS t(id, slot)
   WHERE s.lane = p_lane AND s.slot = t.slot;
  UPDATE runs r SET status = 'running', started_at = clock_timestamp(), lease_owner = p_owner,
         lease_until = clock_timestamp() + p_lease_ms * interval '1 millisecond'
   WHERE r.id = ANY(v_runs);
  RETURN v_runs;
END
$$;
