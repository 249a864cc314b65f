-- CreateEnum
CREATE TYPE "TaskStatus" AS ENUM ('pending', 'in_progress', 'completed', 'cancelled');

-- CreateTable
CREATE TABLE "tasks" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "subject" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "status" "TaskStatus" NOT NULL,
    "owner_type" TEXT,
    "owner_id" TEXT,
    "blocked_by" UUID[] DEFAULT ARRAY[]::UUID[],
    "created_by" JSONB NOT NULL,
    "caused_by" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "claimed_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_collaborators" (
    "workspace_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "collaborator_id" UUID NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "updated_by" UUID NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_collaborators_pkey" PRIMARY KEY ("agent_id","collaborator_id")
);

-- CreateIndex
CREATE INDEX "tasks_workspace_id_id_idx" ON "tasks"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "tasks_workspace_id_status_id_idx" ON "tasks"("workspace_id", "status", "id");

-- CreateIndex
CREATE INDEX "tasks_blocked_by_idx" ON "tasks" USING GIN ("blocked_by");

-- CreateIndex
CREATE INDEX "agent_collaborators_workspace_id_agent_id_idx" ON "agent_collaborators"("workspace_id", "agent_id");
