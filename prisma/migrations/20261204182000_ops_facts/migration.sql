-- CreateTable
CREATE TABLE "run_lease_lapses" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "lane" TEXT NOT NULL,
    "lease_owner" TEXT NOT NULL,
    "lease_until" TIMESTAMPTZ(3),
    "noted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_lease_lapses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ops_fact_marks" (
    "kind" TEXT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL,
    "active_since" TIMESTAMPTZ(3),

    CONSTRAINT "ops_fact_marks_pkey" PRIMARY KEY ("kind","workspace_id","key")
);

-- CreateIndex
CREATE INDEX "runs_model_failures_idx" ON "runs"("ended_at") WHERE ((status = 'failed'::"RunStatus") AND (reason ~~ 'model_%'::text));

-- CreateIndex
CREATE INDEX "dead_letters_failed_at_idx" ON "dead_letters"("failed_at");
