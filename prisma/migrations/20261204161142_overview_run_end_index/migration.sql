-- The operations overview counts the runs that ended per minute from their facts (decision 0036):
-- a partial index holds only those facts, by time, so a window reads its own rows and not the
-- workspace's whole history. Written on inserts of run-end facts only.
-- CreateIndex
CREATE INDEX "platform_events_run_end_ts_idx" ON "platform_events"("workspace_id", "ts") WHERE (kind = ANY (ARRAY['agent.run.completed'::text, 'agent.run.failed'::text, 'agent.run.cancelled'::text, 'agent.run.dropped'::text]));
