-- AlterTable
ALTER TABLE "Payment" ADD COLUMN "chainCheckedAt" DATETIME;
