-- What a claim returns (ClaimRowSchema in libs/runs): the runs it started, FIFO as started
-- (run_queue_started each), and the lapsed runs it failed (run_queue_ref each).
CREATE OR REPLACE FUNCTION "run_queue_claimed"(p_started uuid[], p_lost jsonb) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
  started jsonb;
BEGIN
  SELECT coalesce(jsonb_agg(run_queue_started(t.id) ORDER BY t.ord), '[]'::jsonb) INTO started
    FROM unnest(p_started) WITH ORDINALITY AS t(id, ord);
  RETURN jsonb_build_object('started', started, 'lost', p_lost);
END
$$;
