-- CreateTable
CREATE TABLE "agents" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "latest_version" INTEGER NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "created_by" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_versions" (
    "agent_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "schema_version" INTEGER NOT NULL,
    "spec" JSONB NOT NULL,
    "created_by" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_versions_pkey" PRIMARY KEY ("agent_id","version")
);

-- CreateIndex
CREATE INDEX "agents_workspace_id_id_idx" ON "agents"("workspace_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "agents_workspace_id_name_live_key" ON "agents"("workspace_id", "name") WHERE (deleted_at IS NULL);

-- AddForeignKey
ALTER TABLE "agents" ADD CONSTRAINT "agents_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_versions" ADD CONSTRAINT "agent_versions_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written (Prisma does not model triggers): agent versions are immutable.
-- A new spec is a new row; deleting rows is left to ON DELETE CASCADE from the workspace.
CREATE FUNCTION "agent_versions_immutable"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'agent_versions rows are immutable (agent %, version %)', OLD.agent_id, OLD.version;
END
$$;

CREATE TRIGGER "agent_versions_no_update" BEFORE UPDATE ON "agent_versions"
  FOR EACH ROW EXECUTE FUNCTION "agent_versions_immutable"();
