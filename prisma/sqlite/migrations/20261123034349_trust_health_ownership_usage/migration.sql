-- CreateTable
CREATE TABLE "ListingHealth" (
    "listingId" TEXT NOT NULL PRIMARY KEY,
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "consecutiveSuccesses" INTEGER NOT NULL DEFAULT 0,
    "lastCode" TEXT,
    "lastCheckedAt" DATETIME,
    "lastHealthyAt" DATETIME,
    "lastLatencyMs" INTEGER,
    "recentProbes" JSONB,
    "nextProbeAt" DATETIME NOT NULL,
    "leasedBy" TEXT,
    "leaseUntil" DATETIME,
    CONSTRAINT "ListingHealth_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "Listing" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "HealthDay" (
    "listingId" TEXT NOT NULL,
    "day" DATETIME NOT NULL,
    "probes" INTEGER NOT NULL DEFAULT 0,
    "successes" INTEGER NOT NULL DEFAULT 0,
    "latencyHistogram" JSONB,

    PRIMARY KEY ("listingId", "day"),
    CONSTRAINT "HealthDay_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "Listing" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "JobLease" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "holder" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "OwnerNonce" (
    "nonce" TEXT NOT NULL PRIMARY KEY,
    "listingId" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "signer" TEXT NOT NULL,
    "usedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PaymentIdempotency" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "payloadHash" TEXT NOT NULL,
    "status" INTEGER,
    "response" JSONB,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "UsageTransfer" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "blockNumber" BIGINT NOT NULL,
    "blockHash" TEXT NOT NULL,
    "txHash" TEXT NOT NULL,
    "logIndex" INTEGER NOT NULL,
    "payer" TEXT NOT NULL,
    "payTo" TEXT NOT NULL,
    "amount" TEXT NOT NULL,
    "at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ChainCheckpoint" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "blockNumber" BIGINT NOT NULL,
    "blockHash" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Listing" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "resource" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "priceUsdc" TEXT NOT NULL,
    "priceAtomic" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "sellerPayTo" TEXT NOT NULL,
    "inputSchema" JSONB,
    "network" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "leftoverSeed" BOOLEAN NOT NULL DEFAULT false,
    "mimeType" TEXT,
    "serviceName" TEXT,
    "tags" TEXT,
    "iconUrl" TEXT,
    "bazaar" JSONB,
    "extensionKeys" TEXT NOT NULL DEFAULT '',
    "listedAt" DATETIME NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "priceMicros" BIGINT NOT NULL DEFAULT 0,
    "healthStatus" TEXT NOT NULL DEFAULT 'unknown',
    "healthSummary" JSONB,
    "ownerVerified" BOOLEAN NOT NULL DEFAULT false,
    "calls30d" INTEGER NOT NULL DEFAULT 0,
    "usageSummary" JSONB,
    "sellerUsage" JSONB,
    "delistedAt" DATETIME
);
INSERT INTO "new_Listing" ("bazaar", "description", "expiresAt", "extensionKeys", "iconUrl", "id", "inputSchema", "leftoverSeed", "listedAt", "method", "mimeType", "network", "priceAtomic", "priceUsdc", "resource", "sellerPayTo", "serviceName", "state", "tags", "updatedAt") SELECT "bazaar", "description", "expiresAt", "extensionKeys", "iconUrl", "id", "inputSchema", "leftoverSeed", "listedAt", "method", "mimeType", "network", "priceAtomic", "priceUsdc", "resource", "sellerPayTo", "serviceName", "state", "tags", "updatedAt" FROM "Listing";
DROP TABLE "Listing";
ALTER TABLE "new_Listing" RENAME TO "Listing";
CREATE INDEX "Listing_state_leftoverSeed_expiresAt_idx" ON "Listing"("state", "leftoverSeed", "expiresAt");
CREATE INDEX "Listing_visible_idx" ON "Listing"("state", "listedAt", "id", "leftoverSeed", "expiresAt", "healthStatus", "ownerVerified", "calls30d");
CREATE INDEX "Listing_popular_idx" ON "Listing"("state", "calls30d", "listedAt", "id", "leftoverSeed", "expiresAt", "healthStatus", "ownerVerified");
CREATE INDEX "Listing_price_idx" ON "Listing"("state", "priceMicros", "listedAt" DESC, "id" DESC, "leftoverSeed", "expiresAt", "healthStatus", "ownerVerified", "calls30d");
CREATE INDEX "Listing_payTo_idx" ON "Listing"("sellerPayTo", "state", "listedAt", "id");
CREATE INDEX "Listing_extensions_idx" ON "Listing"("extensionKeys", "state", "listedAt", "id");
CREATE INDEX "Listing_resource_method_sellerPayTo_idx" ON "Listing"("resource", "method", "sellerPayTo");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "ListingHealth_nextProbeAt_idx" ON "ListingHealth"("nextProbeAt");

-- CreateIndex
CREATE INDEX "HealthDay_day_idx" ON "HealthDay"("day");

-- CreateIndex
CREATE INDEX "OwnerNonce_listingId_idx" ON "OwnerNonce"("listingId");

-- CreateIndex
CREATE INDEX "PaymentIdempotency_createdAt_idx" ON "PaymentIdempotency"("createdAt");

-- CreateIndex
CREATE INDEX "UsageTransfer_payTo_at_idx" ON "UsageTransfer"("payTo", "at");

-- CreateIndex
CREATE INDEX "UsageTransfer_payer_at_idx" ON "UsageTransfer"("payer", "at");

-- CreateIndex
CREATE INDEX "UsageTransfer_blockNumber_idx" ON "UsageTransfer"("blockNumber");

-- CreateIndex
CREATE INDEX "UsageTransfer_at_idx" ON "UsageTransfer"("at");

-- Search: FTS5 trigram index over Listing (description, resource, sellerPayTo, serviceName, tags), kept in sync by triggers.
CREATE VIRTUAL TABLE IF NOT EXISTS "ListingSearch" USING fts5(
    "description", "resource", "sellerPayTo", "serviceName", "tags",
    content = 'Listing', content_rowid = 'rowid', tokenize = 'trigram'
);

DROP TRIGGER IF EXISTS "Listing_search_insert";
CREATE TRIGGER "Listing_search_insert" AFTER INSERT ON "Listing" BEGIN
    INSERT INTO "ListingSearch" ("rowid", "description", "resource", "sellerPayTo", "serviceName", "tags")
    VALUES (new."rowid", new."description", new."resource", new."sellerPayTo", new."serviceName", new."tags");
END;

DROP TRIGGER IF EXISTS "Listing_search_delete";
CREATE TRIGGER "Listing_search_delete" AFTER DELETE ON "Listing" BEGIN
    INSERT INTO "ListingSearch" ("ListingSearch", "rowid", "description", "resource", "sellerPayTo", "serviceName", "tags")
    VALUES ('delete', old."rowid", old."description", old."resource", old."sellerPayTo", old."serviceName", old."tags");
END;

DROP TRIGGER IF EXISTS "Listing_search_update";
CREATE TRIGGER "Listing_search_update" AFTER UPDATE OF "description", "resource", "sellerPayTo", "serviceName", "tags" ON "Listing" BEGIN
    INSERT INTO "ListingSearch" ("ListingSearch", "rowid", "description", "resource", "sellerPayTo", "serviceName", "tags")
    VALUES ('delete', old."rowid", old."description", old."resource", old."sellerPayTo", old."serviceName", old."tags");
    INSERT INTO "ListingSearch" ("rowid", "description", "resource", "sellerPayTo", "serviceName", "tags")
    VALUES (new."rowid", new."description", new."resource", new."sellerPayTo", new."serviceName", new."tags");
END;

INSERT INTO "ListingSearch" ("ListingSearch") VALUES ('rebuild');

CREATE TRIGGER "Listing_state_check_insert" BEFORE INSERT ON "Listing"
WHEN NEW."state" NOT IN ('pending', 'active', 'failed', 'delisted') BEGIN
    SELECT RAISE(ABORT, 'Listing_state_check: state must be pending, active, failed or delisted');
END;

CREATE TRIGGER "Listing_state_check_update" BEFORE UPDATE OF "state" ON "Listing"
WHEN NEW."state" NOT IN ('pending', 'active', 'failed', 'delisted') BEGIN
    SELECT RAISE(ABORT, 'Listing_state_check: state must be pending, active, failed or delisted');
END;

-- Written by hand: existing rows get the price order, and owner-verified where sellerPayTo itself
-- paid a settled fee.
UPDATE "Listing" SET "priceMicros" = CAST("priceAtomic" AS INTEGER);
UPDATE "Listing" SET "ownerVerified" = true
WHERE EXISTS (SELECT 1 FROM "Payment" p WHERE p."listingId" = "Listing"."id" AND p."state" = 'settled' AND p."payer" = lower("Listing"."sellerPayTo"));
