-- AlterTable
ALTER TABLE "Payment" ADD COLUMN     "chainCheckedAt" TIMESTAMPTZ(3);
