-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "used_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "eval_runs" ADD COLUMN     "draft" JSONB;

-- AlterTable
ALTER TABLE "eval_trials" ADD COLUMN     "claimed_at" TIMESTAMPTZ(3),
ADD COLUMN     "started_at" TIMESTAMPTZ(3);

-- Trials written before this migration were written after their try run was created.
UPDATE "eval_trials" SET "started_at" = now() WHERE "started_at" IS NULL;
