-- CreateEnum
CREATE TYPE "AccessLinkPurpose" AS ENUM ('invitation', 'sign_in');

-- CreateTable
CREATE TABLE "access_links" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "purpose" "AccessLinkPurpose" NOT NULL,
    "hash" TEXT NOT NULL,
    "role" "Role" NOT NULL,
    "user_id" UUID,
    "created_by" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),

    CONSTRAINT "access_links_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "access_links_hash_key" ON "access_links"("hash");

-- CreateIndex
CREATE INDEX "access_links_workspace_id_idx" ON "access_links"("workspace_id");

-- AddForeignKey
ALTER TABLE "access_links" ADD CONSTRAINT "access_links_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
