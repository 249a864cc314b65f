-- The fair claim (decision 0054): starts up to p_limit queued runs across workspaces. Workspaces
-- with queued runs (at most 1000, found by a skip scan of the queued-runs index) are taken in
-- the order fewest runs in flight, then oldest queued run; a workspace's `max_concurrent_runs`
-- (workspace_settings, null: none) caps its runs in flight. A first pass gives each workspace its
-- share of the limit (limit / workspaces, at least 1), a second the rest in the same order. In a
-- workspace, its lanes with queued runs are visited in name order, at most 200 lane visits per
-- claim; each lane starts its oldest runs in its free slots (run_lane_start). Returns the
-- started runs' ids.
CREATE OR REPLACE FUNCTION "run_queue_claim_next"(p_owner text, p_lease_ms int, p_limit int) RETURNS uuid[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_ids uuid[] := '{}';
  v_started uuid[];
  v_spaces uuid[];
  v_rooms int[];
  v_share int;
  v_room int;
  v_lane text;
  v_visits int := 0;
  v_pass int;
  i int;
BEGIN
  IF p_limit <= 0 THEN RETURN v_ids; END IF;
  WITH RECURSIVE spaces(workspace_id, n) AS (
    (SELECT r.workspace_id, 1 FROM runs r WHERE r.status = 'queued' ORDER BY r.workspace_id LIMIT 1)
    UNION ALL
    SELECT (SELECT r.workspace_id FROM runs r WHERE r.status = 'queued' AND r.workspace_id > s.workspace_id ORDER BY r.workspace_id LIMIT 1), s.n + 1
      FROM spaces s WHERE s.workspace_id IS NOT NULL AND s.n < 1000),
  ranked AS (
    SELECT s.workspace_id,
           (SELECT count(*) FROM runs r WHERE r.workspace_id = s.workspace_id AND r.status = 'running')::int AS in_flight,
           (SELECT min(r.queued_at) FROM runs r WHERE r.workspace_id = s.workspace_id AND r.status = 'queued') AS oldest,
           (SELECT w.max_concurrent_runs FROM workspace_settings w WHERE w.workspace_id = s.workspace_id) AS ceiling
      FROM spaces s WHERE s.workspace_id IS NOT NULL)
  SELECT array_agg(k.workspace_id ORDER BY k.in_flight, k.oldest, k.workspace_id),
         array_agg(CASE WHEN k.ceiling IS NULL THEN p_limit ELSE greatest(k.ceiling - k.in_flight, 0) END ORDER BY k.in_flight, k.oldest, k.workspace_id)
    INTO v_spaces, v_rooms FROM ranked k;
  IF v_spaces IS NULL THEN RETURN v_ids; END IF;
  v_share := greatest(1, p_limit / cardinality(v_spaces));
  FOR v_pass IN 1..2 LOOP
    FOR i IN 1..cardinality(v_spaces) LOOP
      EXIT WHEN cardinality(v_ids) >= p_limit OR v_visits >= 200;
      v_room := least(v_rooms[i], p_limit - cardinality(v_ids), CASE WHEN v_pass = 1 THEN v_share ELSE p_limit END);
      v_lane := '';
      WHILE v_room > 0 AND v_visits < 200 LOOP
        SELECT r.lane INTO v_lane FROM runs r WHERE r.workspace_id = v_spaces[i] AND r.status = 'queued' AND r.lane > v_lane ORDER BY r.lane LIMIT 1;
        EXIT WHEN NOT FOUND;
        v_visits := v_visits + 1;
        v_started := run_lane_start(v_lane, p_owner, p_lease_ms, v_room);
        v_ids := v_ids || v_started;
        v_room := v_room - cardinality(v_started);
        v_rooms[i] := v_rooms[i] - cardinality(v_started);
      END LOOP;
    END LOOP;
    EXIT WHEN cardinality(v_ids) >= p_limit OR v_visits >= 200;
  END LOOP;
  RETURN v_ids;
END
$$;
