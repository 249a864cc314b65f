-- CreateTable
CREATE TABLE "teammate_deliveries" (
    "teammate_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "event_kind" TEXT NOT NULL,
    "message_id" UUID NOT NULL,
    "run_id" UUID,
    "delivered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "teammate_deliveries_pkey" PRIMARY KEY ("teammate_id","event_id")
);

-- CreateIndex
CREATE INDEX "teammate_deliveries_teammate_id_event_kind_delivered_at_idx" ON "teammate_deliveries"("teammate_id", "event_kind", "delivered_at");
