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
    "delistedAt" DATETIME,
    "indexedKey" TEXT,
    "indexedSource" TEXT,
    "provenance" JSONB,
    "uptime7d" REAL NOT NULL DEFAULT 0
);
INSERT INTO "new_Listing" ("bazaar", "calls30d", "delistedAt", "description", "expiresAt", "extensionKeys", "healthStatus", "healthSummary", "iconUrl", "id", "indexedKey", "indexedSource", "inputSchema", "leftoverSeed", "listedAt", "method", "mimeType", "network", "ownerVerified", "priceAtomic", "priceMicros", "priceUsdc", "provenance", "resource", "sellerPayTo", "sellerUsage", "serviceName", "state", "tags", "updatedAt", "usageSummary") SELECT "bazaar", "calls30d", "delistedAt", "description", "expiresAt", "extensionKeys", "healthStatus", "healthSummary", "iconUrl", "id", "indexedKey", "indexedSource", "inputSchema", "leftoverSeed", "listedAt", "method", "mimeType", "network", "ownerVerified", "priceAtomic", "priceMicros", "priceUsdc", "provenance", "resource", "sellerPayTo", "sellerUsage", "serviceName", "state", "tags", "updatedAt", "usageSummary" FROM "Listing";
DROP TABLE "Listing";
ALTER TABLE "new_Listing" RENAME TO "Listing";
CREATE UNIQUE INDEX "Listing_indexedKey_key" ON "Listing"("indexedKey");
CREATE INDEX "Listing_state_leftoverSeed_expiresAt_idx" ON "Listing"("state", "leftoverSeed", "expiresAt");
CREATE INDEX "Listing_visible_idx" ON "Listing"("state", "listedAt", "id", "leftoverSeed", "expiresAt", "healthStatus", "ownerVerified", "calls30d");
CREATE INDEX "Listing_popular_idx" ON "Listing"("state", "calls30d", "listedAt", "id", "leftoverSeed", "expiresAt", "healthStatus", "ownerVerified");
CREATE INDEX "Listing_price_idx" ON "Listing"("state", "priceMicros", "listedAt" DESC, "id" DESC, "leftoverSeed", "expiresAt", "healthStatus", "ownerVerified", "calls30d");
CREATE INDEX "Listing_uptime_idx" ON "Listing"("state", "uptime7d", "listedAt", "id", "leftoverSeed", "expiresAt", "healthStatus", "ownerVerified", "calls30d");
CREATE INDEX "Listing_payTo_idx" ON "Listing"("sellerPayTo", "state", "listedAt", "id");
CREATE INDEX "Listing_extensions_idx" ON "Listing"("extensionKeys", "state", "listedAt", "id");
CREATE INDEX "Listing_resource_method_sellerPayTo_idx" ON "Listing"("resource", "method", "sellerPayTo");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

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
WHEN NEW."state" NOT IN ('pending', 'active', 'failed', 'delisted', 'indexing', 'indexed') BEGIN
    SELECT RAISE(ABORT, 'Listing_state_check: state must be pending, active, failed, delisted, indexing or indexed');
END;

CREATE TRIGGER "Listing_state_check_update" BEFORE UPDATE OF "state" ON "Listing"
WHEN NEW."state" NOT IN ('pending', 'active', 'failed', 'delisted', 'indexing', 'indexed') BEGIN
    SELECT RAISE(ABORT, 'Listing_state_check: state must be pending, active, failed, delisted, indexing or indexed');
END;

-- Backfill: the 7-day uptime each listing's published health summary already shows (the sort=uptime order).
UPDATE "Listing" SET "uptime7d" = json_extract("healthSummary", '$.uptime7d')
WHERE json_valid("healthSummary") AND json_type("healthSummary", '$.uptime7d') IN ('integer', 'real');
