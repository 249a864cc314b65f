-- CreateTable
CREATE TABLE "ui_sessions" (
    "id" UUID NOT NULL,
    "hash" TEXT NOT NULL,
    "token_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "ui_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ui_sessions_hash_key" ON "ui_sessions"("hash");

-- CreateIndex
CREATE INDEX "ui_sessions_token_id_idx" ON "ui_sessions"("token_id");

-- AddForeignKey
ALTER TABLE "ui_sessions" ADD CONSTRAINT "ui_sessions_token_id_fkey" FOREIGN KEY ("token_id") REFERENCES "api_tokens"("id") ON DELETE CASCADE ON UPDATE CASCADE;
