-- AlterTable
ALTER TABLE "api_tokens" ADD COLUMN     "expires_at" TIMESTAMPTZ(3);
