-- CreateTable
CREATE TABLE "webhooks" (
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "verifier" TEXT NOT NULL,
    "config" JSONB NOT NULL,
    "key_id" TEXT,
    "iv" BYTEA,
    "ciphertext" BYTEA,
    "tag" BYTEA,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("workspace_id","name")
);
