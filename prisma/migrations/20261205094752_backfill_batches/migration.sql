-- CreateTable
CREATE TABLE "backfill_batches" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "agent_version" INTEGER NOT NULL,
    "request" JSONB NOT NULL,
    "event_seqs" BIGINT[],
    "started" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL,
    "created_by" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "backfill_batches_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "backfill_batches_status_idx" ON "backfill_batches"("status");

-- CreateIndex
CREATE INDEX "backfill_batches_workspace_id_agent_id_idx" ON "backfill_batches"("workspace_id", "agent_id");
