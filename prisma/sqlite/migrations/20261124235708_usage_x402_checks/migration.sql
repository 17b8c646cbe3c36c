-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_UsageTransfer" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "blockNumber" BIGINT NOT NULL,
    "blockHash" TEXT NOT NULL,
    "txHash" TEXT NOT NULL,
    "logIndex" INTEGER NOT NULL,
    "payer" TEXT NOT NULL,
    "payTo" TEXT NOT NULL,
    "amount" TEXT NOT NULL,
    "at" DATETIME NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'pending',
    "sender" TEXT
);
INSERT INTO "new_UsageTransfer" ("amount", "at", "blockHash", "blockNumber", "id", "logIndex", "payTo", "payer", "txHash") SELECT "amount", "at", "blockHash", "blockNumber", "id", "logIndex", "payTo", "payer", "txHash" FROM "UsageTransfer";
DROP TABLE "UsageTransfer";
ALTER TABLE "new_UsageTransfer" RENAME TO "UsageTransfer";
CREATE INDEX "UsageTransfer_kind_at_idx" ON "UsageTransfer"("kind", "at");
CREATE INDEX "UsageTransfer_payTo_at_idx" ON "UsageTransfer"("payTo", "at");
CREATE INDEX "UsageTransfer_payer_at_idx" ON "UsageTransfer"("payer", "at");
CREATE INDEX "UsageTransfer_blockNumber_idx" ON "UsageTransfer"("blockNumber");
CREATE INDEX "UsageTransfer_at_idx" ON "UsageTransfer"("at");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
