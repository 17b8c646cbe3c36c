-- CreateTable
CREATE TABLE "Listing" (
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
    "listedAt" DATETIME NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Payment" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "network" TEXT NOT NULL,
    "asset" TEXT NOT NULL,
    "payer" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "amount" TEXT NOT NULL,
    "payTo" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "txHash" TEXT,
    "failureReason" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settledAt" DATETIME,
    "listingId" TEXT,
    CONSTRAINT "Payment_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "Listing" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "CatalogState" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "version" INTEGER NOT NULL,
    "changedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "Listing_state_leftoverSeed_expiresAt_idx" ON "Listing"("state", "leftoverSeed", "expiresAt");

-- CreateIndex
CREATE INDEX "Listing_state_leftoverSeed_listedAt_idx" ON "Listing"("state", "leftoverSeed", "listedAt");

-- CreateIndex
CREATE INDEX "Listing_resource_method_sellerPayTo_idx" ON "Listing"("resource", "method", "sellerPayTo");

-- CreateIndex
CREATE INDEX "Payment_listingId_idx" ON "Payment"("listingId");

-- CreateIndex
CREATE INDEX "Payment_state_createdAt_idx" ON "Payment"("state", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Payment_network_asset_payer_nonce_key" ON "Payment"("network", "asset", "payer", "nonce");

-- Search: FTS5 trigram index over Listing (description, resource, sellerPayTo), kept in sync by triggers.
CREATE VIRTUAL TABLE IF NOT EXISTS "ListingSearch" USING fts5(
    "description", "resource", "sellerPayTo",
    content = 'Listing', content_rowid = 'rowid', tokenize = 'trigram'
);

DROP TRIGGER IF EXISTS "Listing_search_insert";
CREATE TRIGGER "Listing_search_insert" AFTER INSERT ON "Listing" BEGIN
    INSERT INTO "ListingSearch" ("rowid", "description", "resource", "sellerPayTo")
    VALUES (new."rowid", new."description", new."resource", new."sellerPayTo");
END;

DROP TRIGGER IF EXISTS "Listing_search_delete";
CREATE TRIGGER "Listing_search_delete" AFTER DELETE ON "Listing" BEGIN
    INSERT INTO "ListingSearch" ("ListingSearch", "rowid", "description", "resource", "sellerPayTo")
    VALUES ('delete', old."rowid", old."description", old."resource", old."sellerPayTo");
END;

DROP TRIGGER IF EXISTS "Listing_search_update";
CREATE TRIGGER "Listing_search_update" AFTER UPDATE OF "description", "resource", "sellerPayTo" ON "Listing" BEGIN
    INSERT INTO "ListingSearch" ("ListingSearch", "rowid", "description", "resource", "sellerPayTo")
    VALUES ('delete', old."rowid", old."description", old."resource", old."sellerPayTo");
    INSERT INTO "ListingSearch" ("rowid", "description", "resource", "sellerPayTo")
    VALUES (new."rowid", new."description", new."resource", new."sellerPayTo");
END;

INSERT INTO "ListingSearch" ("ListingSearch") VALUES ('rebuild');
