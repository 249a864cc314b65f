-- AlterTable
ALTER TABLE "teammates" ADD COLUMN     "memory" JSONB;
