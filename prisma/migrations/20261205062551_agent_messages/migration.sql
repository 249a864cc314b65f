-- CreateTable
CREATE TABLE "agent_message_cursors" (
    "workspace_id" UUID NOT NULL,
    "last_seq" BIGINT NOT NULL,

    CONSTRAINT "agent_message_cursors_pkey" PRIMARY KEY ("workspace_id")
);

-- CreateTable
CREATE TABLE "agent_message_observations" (
    "workspace_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "message_id" TEXT NOT NULL,
    "sender_type" TEXT NOT NULL,
    "sender_id" TEXT NOT NULL,
    "sender_run_id" TEXT,
    "sender_session" TEXT,
    "sender_key" TEXT NOT NULL,
    "sender_seq" BIGINT NOT NULL,
    "previous_sender_seq" BIGINT,
    "sequence" TEXT NOT NULL,
    "thread" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "observed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "content_sha256" TEXT NOT NULL,
    "content_chars" INTEGER NOT NULL,
    "deliveries" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "agent_message_observations_pkey" PRIMARY KEY ("workspace_id","seq")
);

-- CreateTable
CREATE TABLE "agent_message_contents" (
    "workspace_id" UUID NOT NULL,
    "message_id" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "retain_until" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agent_message_contents_pkey" PRIMARY KEY ("workspace_id","message_id")
);

-- CreateTable
CREATE TABLE "agent_message_quarantine" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "reason" TEXT NOT NULL,
    "message_id" TEXT,
    "sender_type" TEXT NOT NULL,
    "sender_id" TEXT NOT NULL,
    "sender_run_id" TEXT,
    "sender_session" TEXT,
    "body_bytes" INTEGER NOT NULL,
    "content_chars" INTEGER,
    "body_sha256" TEXT NOT NULL,
    "issues" TEXT[],
    "deliveries" INTEGER NOT NULL DEFAULT 1,
    "received_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agent_message_quarantine_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "agent_message_observations_workspace_id_sender_key_seq_idx" ON "agent_message_observations"("workspace_id", "sender_key", "seq");

-- CreateIndex
CREATE INDEX "agent_message_observations_workspace_id_thread_seq_idx" ON "agent_message_observations"("workspace_id", "thread", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "agent_message_observations_workspace_id_message_id_key" ON "agent_message_observations"("workspace_id", "message_id");

-- CreateIndex
CREATE INDEX "agent_message_contents_retain_until_idx" ON "agent_message_contents"("retain_until");

-- CreateIndex
CREATE INDEX "agent_message_quarantine_workspace_id_received_at_idx" ON "agent_message_quarantine"("workspace_id", "received_at");
