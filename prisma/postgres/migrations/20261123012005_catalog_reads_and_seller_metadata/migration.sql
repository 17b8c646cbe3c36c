-- Search: pg_trgm backs the GIN trigram indexes on Listing.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

-- DropIndex
DROP INDEX "Listing_state_leftoverSeed_listedAt_idx";

-- AlterTable
ALTER TABLE "Listing" ADD COLUMN     "bazaar" JSONB,
ADD COLUMN     "extensionKeys" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "iconUrl" TEXT,
ADD COLUMN     "mimeType" TEXT,
ADD COLUMN     "serviceName" TEXT,
ADD COLUMN     "tags" TEXT;

-- CreateIndex
CREATE INDEX "Listing_visible_idx" ON "Listing"("state", "listedAt", "id", "leftoverSeed", "expiresAt");

-- CreateIndex
CREATE INDEX "Listing_payTo_idx" ON "Listing"("sellerPayTo", "state", "listedAt", "id");

-- CreateIndex
CREATE INDEX "Listing_extensions_idx" ON "Listing"("extensionKeys", "state", "listedAt", "id");

-- CreateIndex
CREATE INDEX "Listing_serviceName_trgm_idx" ON "Listing" USING GIN ("serviceName" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Listing_tags_trgm_idx" ON "Listing" USING GIN ("tags" gin_trgm_ops);
