-- DropIndex
DROP INDEX "runs_workspace_id_session_id_idx";

-- CreateIndex
CREATE INDEX "runs_workspace_id_session_id_queued_at_id_idx" ON "runs"("workspace_id", "session_id", "queued_at", "id");
