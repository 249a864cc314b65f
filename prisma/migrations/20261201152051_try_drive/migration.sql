-- CreateTable
CREATE TABLE "agent_tries" (
    "run_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "agent_version" INTEGER,
    "spec" JSONB NOT NULL,
    "fact" JSONB,
    "created_by" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_tries_pkey" PRIMARY KEY ("run_id")
);

-- CreateIndex
CREATE INDEX "agent_tries_workspace_id_agent_id_run_id_idx" ON "agent_tries"("workspace_id", "agent_id", "run_id");

-- Hand-written (Prisma does not model triggers). Decision 0027: a try run (origin_type 'try')
-- records no fact, so nothing it does can activate an agent. The guard is on the triggers, not
-- in runs_status_fact(), so a later change of that builder keeps it.
DROP TRIGGER "runs_inserted_fact" ON "runs";
CREATE TRIGGER "runs_inserted_fact" AFTER INSERT ON "runs"
  FOR EACH ROW WHEN (NEW.origin_type <> 'try') EXECUTE FUNCTION "runs_status_fact"();

DROP TRIGGER "runs_status_changed_fact" ON "runs";
CREATE TRIGGER "runs_status_changed_fact" AFTER UPDATE OF "status" ON "runs"
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.origin_type <> 'try') EXECUTE FUNCTION "runs_status_fact"();
