-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('queued', 'running', 'awaiting_approval', 'completed', 'failed', 'cancelled', 'dropped');

-- CreateTable
CREATE TABLE "runs" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "agent_version" INTEGER NOT NULL,
    "origin_type" TEXT NOT NULL,
    "origin" JSONB NOT NULL,
    "event_id" UUID,
    "event_kind" TEXT,
    "status" "RunStatus" NOT NULL,
    "reason" TEXT,
    "caused_by" JSONB,
    "depth" INTEGER NOT NULL DEFAULT 0,
    "session_id" UUID NOT NULL,
    "outcome" JSONB,
    "error" JSONB,
    "stop_requested" BOOLEAN NOT NULL DEFAULT false,
    "queued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workspace_settings" (
    "workspace_id" UUID NOT NULL,
    "agents_paused" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspace_settings_pkey" PRIMARY KEY ("workspace_id")
);

-- CreateTable
CREATE TABLE "consumer_cursors" (
    "consumer" TEXT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "last_seq" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "consumer_cursors_pkey" PRIMARY KEY ("consumer","workspace_id")
);

-- CreateIndex
CREATE INDEX "runs_workspace_id_queued_at_idx" ON "runs"("workspace_id", "queued_at");

-- CreateIndex
CREATE INDEX "runs_agent_id_status_queued_at_idx" ON "runs"("agent_id", "status", "queued_at");

-- CreateIndex
CREATE UNIQUE INDEX "runs_agent_id_event_id_trigger_key" ON "runs"("agent_id", "event_id") WHERE (origin_type = 'trigger');
