-- CreateTable
CREATE TABLE "activation_skips" (
    "event_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "agent_version" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "decided_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "activation_skips_pkey" PRIMARY KEY ("event_id","agent_id")
);
