-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_WebhookSubscription" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "url" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "sellerPayTo" TEXT,
    "listingIds" JSONB,
    "search" JSONB,
    "eventTypes" JSONB,
    "secret" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "challenge" TEXT,
    "disabledReason" TEXT,
    "fromSeq" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "verifiedAt" DATETIME,
    "clientIp" TEXT,
    "host" TEXT,
    "verifyAttempts" INTEGER NOT NULL DEFAULT 0,
    "nextVerifyAt" DATETIME
);
INSERT INTO "new_WebhookSubscription" ("challenge", "createdAt", "disabledReason", "eventTypes", "fromSeq", "id", "kind", "listingIds", "search", "secret", "secretHash", "sellerPayTo", "status", "url", "verifiedAt") SELECT "challenge", "createdAt", "disabledReason", "eventTypes", "fromSeq", "id", "kind", "listingIds", "search", "secret", "secretHash", "sellerPayTo", "status", "url", "verifiedAt" FROM "WebhookSubscription";
DROP TABLE "WebhookSubscription";
ALTER TABLE "new_WebhookSubscription" RENAME TO "WebhookSubscription";
CREATE INDEX "WebhookSubscription_status_idx" ON "WebhookSubscription"("status");
CREATE INDEX "WebhookSubscription_sellerPayTo_idx" ON "WebhookSubscription"("sellerPayTo");
CREATE INDEX "WebhookSubscription_url_idx" ON "WebhookSubscription"("url");
CREATE INDEX "WebhookSubscription_status_nextVerifyAt_idx" ON "WebhookSubscription"("status", "nextVerifyAt");
CREATE INDEX "WebhookSubscription_clientIp_status_idx" ON "WebhookSubscription"("clientIp", "status");
CREATE INDEX "WebhookSubscription_host_status_idx" ON "WebhookSubscription"("host", "status");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
