-- AlterTable
ALTER TABLE "platform_events" ADD COLUMN     "stated_actor" JSONB;

-- CreateTable
CREATE TABLE "dead_letters" (
    "id" BIGSERIAL NOT NULL,
    "stream" TEXT NOT NULL,
    "group_name" TEXT NOT NULL,
    "entry_id" TEXT NOT NULL,
    "consumer" TEXT NOT NULL,
    "deliveries" INTEGER NOT NULL,
    "error" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "failed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "replayed_at" TIMESTAMPTZ(3),
    "replayed_as" TEXT,

    CONSTRAINT "dead_letters_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "dead_letters_stream_group_name_replayed_at_idx" ON "dead_letters"("stream", "group_name", "replayed_at");

-- CreateIndex
CREATE UNIQUE INDEX "dead_letters_stream_group_name_entry_id_key" ON "dead_letters"("stream", "group_name", "entry_id");
