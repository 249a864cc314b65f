-- CreateTable
CREATE TABLE "workspace_secrets" (
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "iv" BYTEA NOT NULL,
    "ciphertext" BYTEA NOT NULL,
    "tag" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspace_secrets_pkey" PRIMARY KEY ("workspace_id","name")
);

-- CreateTable
CREATE TABLE "transcript_entries" (
    "session_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "workspace_id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "content" JSONB NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transcript_entries_pkey" PRIMARY KEY ("session_id","seq")
);

-- CreateTable
CREATE TABLE "agent_tokens" (
    "id" UUID NOT NULL,
    "hash" TEXT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "depth" INTEGER NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_spend_daily" (
    "agent_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "workspace_id" UUID NOT NULL,
    "cost_usd" DECIMAL(14,6) NOT NULL DEFAULT 0,

    CONSTRAINT "agent_spend_daily_pkey" PRIMARY KEY ("agent_id","day")
);

-- CreateIndex
CREATE INDEX "transcript_entries_run_id_seq_idx" ON "transcript_entries"("run_id", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "agent_tokens_hash_key" ON "agent_tokens"("hash");

-- CreateIndex
CREATE UNIQUE INDEX "agent_tokens_run_id_key" ON "agent_tokens"("run_id");

-- A transcript is append-only: rows are never changed (deleting a workspace's data is an operator's job, by TRUNCATE or DELETE as superuser policy decides).
CREATE FUNCTION "transcript_entries_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'transcript_entries rows are append-only (session %, seq %)', OLD.session_id, OLD.seq;
END
$$;

CREATE TRIGGER "transcript_entries_no_update" BEFORE UPDATE ON "transcript_entries"
  FOR EACH ROW EXECUTE FUNCTION "transcript_entries_append_only"();
