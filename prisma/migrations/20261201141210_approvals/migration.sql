-- AlterTable
ALTER TABLE "workspace_settings" ADD COLUMN     "approvals" TEXT NOT NULL DEFAULT 'enabled';

-- CreateTable
CREATE TABLE "approvals" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "agent_version" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "tool_call_id" TEXT NOT NULL,
    "tool" JSONB,
    "arguments_preview" TEXT NOT NULL,
    "truncated" BOOLEAN NOT NULL DEFAULT false,
    "reason" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "decided_by" JSONB,
    "note" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "execution_started_at" TIMESTAMPTZ(3),

    CONSTRAINT "approvals_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "approvals_workspace_id_status_requested_at_id_idx" ON "approvals"("workspace_id", "status", "requested_at", "id");

-- CreateIndex
CREATE INDEX "approvals_workspace_id_requested_at_id_idx" ON "approvals"("workspace_id", "requested_at", "id");

-- CreateIndex
CREATE INDEX "approvals_status_expires_at_idx" ON "approvals"("status", "expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "approvals_run_id_tool_call_id_key" ON "approvals"("run_id", "tool_call_id");

