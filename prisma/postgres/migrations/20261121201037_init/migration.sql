-- Search: pg_trgm backs the GIN trigram indexes on Listing.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "Listing" (
    "id" UUID NOT NULL,
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
    "listedAt" TIMESTAMPTZ(3) NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Listing_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Payment" (
    "id" UUID NOT NULL,
    "network" TEXT NOT NULL,
    "asset" TEXT NOT NULL,
    "payer" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "amount" TEXT NOT NULL,
    "payTo" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "txHash" TEXT,
    "failureReason" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settledAt" TIMESTAMPTZ(3),
    "listingId" UUID,

    CONSTRAINT "Payment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CatalogState" (
    "id" INTEGER NOT NULL,
    "version" INTEGER NOT NULL,
    "changedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "CatalogState_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Listing_state_leftoverSeed_expiresAt_idx" ON "Listing"("state", "leftoverSeed", "expiresAt");

-- CreateIndex
CREATE INDEX "Listing_state_leftoverSeed_listedAt_idx" ON "Listing"("state", "leftoverSeed", "listedAt");

-- CreateIndex
CREATE INDEX "Listing_resource_method_sellerPayTo_idx" ON "Listing"("resource", "method", "sellerPayTo");

-- CreateIndex
CREATE INDEX "Listing_description_trgm_idx" ON "Listing" USING GIN ("description" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Listing_resource_trgm_idx" ON "Listing" USING GIN ("resource" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Listing_sellerPayTo_trgm_idx" ON "Listing" USING GIN ("sellerPayTo" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Payment_listingId_idx" ON "Payment"("listingId");

-- CreateIndex
CREATE INDEX "Payment_state_createdAt_idx" ON "Payment"("state", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Payment_network_asset_payer_nonce_key" ON "Payment"("network", "asset", "payer", "nonce");

-- AddForeignKey
ALTER TABLE "Payment" ADD CONSTRAINT "Payment_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "Listing"("id") ON DELETE SET NULL ON UPDATE CASCADE;
