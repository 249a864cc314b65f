-- CreateTable
CREATE TABLE "notification_settings" (
    "workspace_id" UUID NOT NULL,
    "connection" JSONB,
    "default_channel" TEXT,
    "rules" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_settings_pkey" PRIMARY KEY ("workspace_id")
);

-- CreateTable
CREATE TABLE "notification_deliveries" (
    "fact_id" UUID NOT NULL,
    "rule_id" TEXT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "subject" TEXT NOT NULL,
    "channel" TEXT,
    "post_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_deliveries_pkey" PRIMARY KEY ("fact_id","rule_id")
);

-- CreateTable
CREATE TABLE "mattermost_links" (
    "workspace_id" UUID NOT NULL,
    "mattermost_user_id" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "max_role" "Role" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mattermost_links_pkey" PRIMARY KEY ("workspace_id","mattermost_user_id")
);

-- CreateTable
CREATE TABLE "mattermost_link_codes" (
    "code_hash" TEXT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "max_role" "Role" NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),

    CONSTRAINT "mattermost_link_codes_pkey" PRIMARY KEY ("code_hash")
);

-- CreateIndex
CREATE INDEX "notification_deliveries_workspace_id_subject_idx" ON "notification_deliveries"("workspace_id", "subject");
