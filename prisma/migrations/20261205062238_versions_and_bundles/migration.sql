-- AlterTable
ALTER TABLE "agents" ADD COLUMN     "pinned_version" INTEGER,
ADD COLUMN     "template_origin" JSONB;

-- CreateTable
CREATE TABLE "agent_version_tags" (
    "agent_id" UUID NOT NULL,
    "tag" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "set_by" UUID NOT NULL,
    "set_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_version_tags_pkey" PRIMARY KEY ("agent_id","tag")
);

-- AddForeignKey
ALTER TABLE "agent_version_tags" ADD CONSTRAINT "agent_version_tags_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The teammate turn's version (the pin, else the latest) is in libs/runs/sql/teammate_wake.sql
-- (decision 0044: run functions are written only from their files).
