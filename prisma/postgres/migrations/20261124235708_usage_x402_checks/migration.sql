-- AlterTable
ALTER TABLE "UsageTransfer" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'pending',
ADD COLUMN     "sender" TEXT;

-- CreateIndex
CREATE INDEX "UsageTransfer_kind_at_idx" ON "UsageTransfer"("kind", "at");
