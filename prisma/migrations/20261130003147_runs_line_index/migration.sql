-- DropIndex
DROP INDEX "runs_agent_id_status_queued_at_idx";

-- CreateIndex
CREATE INDEX "runs_agent_id_status_queued_at_id_idx" ON "runs"("agent_id", "status", "queued_at", "id");
