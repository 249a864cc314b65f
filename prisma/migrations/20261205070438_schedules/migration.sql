-- CreateTable
CREATE TABLE "schedules" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "cron" TEXT,
    "every_ms" INTEGER,
    "timezone" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "emit" JSONB NOT NULL,
    "missed" TEXT NOT NULL,
    "anchor_at" TIMESTAMPTZ(3) NOT NULL,
    "next_fire_at" TIMESTAMPTZ(3),
    "skipped_slots" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "schedules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "schedule_fires" (
    "fact_id" UUID NOT NULL,
    "schedule_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "slot_at" TIMESTAMPTZ(3) NOT NULL,
    "slot_key" TEXT,
    "fired_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "late" BOOLEAN NOT NULL DEFAULT false,
    "manual" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "schedule_fires_pkey" PRIMARY KEY ("fact_id")
);

-- CreateIndex
CREATE INDEX "schedules_next_fire_at_idx" ON "schedules"("next_fire_at");

-- CreateIndex
CREATE UNIQUE INDEX "schedules_workspace_id_name_key" ON "schedules"("workspace_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "schedule_fires_slot_key_key" ON "schedule_fires"("slot_key");

-- CreateIndex
CREATE INDEX "schedule_fires_schedule_id_fired_at_idx" ON "schedule_fires"("schedule_id", "fired_at");

-- AddForeignKey
ALTER TABLE "schedule_fires" ADD CONSTRAINT "schedule_fires_schedule_id_fkey" FOREIGN KEY ("schedule_id") REFERENCES "schedules"("id") ON DELETE CASCADE ON UPDATE CASCADE;
