-- CreateTable
CREATE TABLE "eval_suites" (
    "id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "cases" JSONB NOT NULL,
    "created_by" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "eval_suites_pkey" PRIMARY KEY ("id","version")
);

-- CreateTable
CREATE TABLE "eval_runs" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "suite_id" UUID NOT NULL,
    "suite_version" INTEGER NOT NULL,
    "targets" JSONB NOT NULL,
    "trials" INTEGER NOT NULL,
    "budget_usd" DOUBLE PRECISION NOT NULL,
    "estimate_usd" DOUBLE PRECISION NOT NULL,
    "status" TEXT NOT NULL,
    "result" JSONB,
    "created_by" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settled_at" TIMESTAMPTZ(3),

    CONSTRAINT "eval_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "eval_trials" (
    "run_id" UUID NOT NULL,
    "eval_id" UUID NOT NULL,
    "case_index" INTEGER NOT NULL,
    "target" INTEGER NOT NULL,
    "trial" INTEGER NOT NULL,
    "judge" JSONB,

    CONSTRAINT "eval_trials_pkey" PRIMARY KEY ("run_id")
);

-- CreateIndex
CREATE INDEX "eval_suites_workspace_id_id_version_idx" ON "eval_suites"("workspace_id", "id", "version" DESC);

-- CreateIndex
CREATE INDEX "eval_runs_workspace_id_agent_id_created_at_idx" ON "eval_runs"("workspace_id", "agent_id", "created_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "eval_trials_eval_id_case_index_target_trial_key" ON "eval_trials"("eval_id", "case_index", "target", "trial");

-- AddForeignKey
ALTER TABLE "eval_trials" ADD CONSTRAINT "eval_trials_eval_id_fkey" FOREIGN KEY ("eval_id") REFERENCES "eval_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
