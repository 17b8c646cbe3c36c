-- DropIndex
DROP INDEX "Listing_visible_idx";

-- AlterTable
ALTER TABLE "Listing" ADD COLUMN     "calls30d" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "delistedAt" TIMESTAMPTZ(3),
ADD COLUMN     "healthStatus" TEXT NOT NULL DEFAULT 'unknown',
ADD COLUMN     "healthSummary" JSONB,
ADD COLUMN     "ownerVerified" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "priceMicros" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "sellerUsage" JSONB,
ADD COLUMN     "usageSummary" JSONB;

-- CreateTable
CREATE TABLE "ListingHealth" (
    "listingId" UUID NOT NULL,
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "consecutiveSuccesses" INTEGER NOT NULL DEFAULT 0,
    "lastCode" TEXT,
    "lastCheckedAt" TIMESTAMPTZ(3),
    "lastHealthyAt" TIMESTAMPTZ(3),
    "lastLatencyMs" INTEGER,
    "recentProbes" JSONB,
    "nextProbeAt" TIMESTAMPTZ(3) NOT NULL,
    "leasedBy" TEXT,
    "leaseUntil" TIMESTAMPTZ(3),

    CONSTRAINT "ListingHealth_pkey" PRIMARY KEY ("listingId")
);

-- CreateTable
CREATE TABLE "HealthDay" (
    "listingId" UUID NOT NULL,
    "day" TIMESTAMPTZ(3) NOT NULL,
    "probes" INTEGER NOT NULL DEFAULT 0,
    "successes" INTEGER NOT NULL DEFAULT 0,
    "latencyHistogram" JSONB,

    CONSTRAINT "HealthDay_pkey" PRIMARY KEY ("listingId","day")
);

-- CreateTable
CREATE TABLE "JobLease" (
    "name" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "JobLease_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "OwnerNonce" (
    "nonce" TEXT NOT NULL,
    "listingId" UUID NOT NULL,
    "action" TEXT NOT NULL,
    "signer" TEXT NOT NULL,
    "usedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "OwnerNonce_pkey" PRIMARY KEY ("nonce")
);

-- CreateTable
CREATE TABLE "PaymentIdempotency" (
    "id" TEXT NOT NULL,
    "payloadHash" TEXT NOT NULL,
    "status" INTEGER,
    "response" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PaymentIdempotency_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UsageTransfer" (
    "id" TEXT NOT NULL,
    "blockNumber" BIGINT NOT NULL,
    "blockHash" TEXT NOT NULL,
    "txHash" TEXT NOT NULL,
    "logIndex" INTEGER NOT NULL,
    "payer" TEXT NOT NULL,
    "payTo" TEXT NOT NULL,
    "amount" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "UsageTransfer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChainCheckpoint" (
    "name" TEXT NOT NULL,
    "blockNumber" BIGINT NOT NULL,
    "blockHash" TEXT NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ChainCheckpoint_pkey" PRIMARY KEY ("name")
);

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

-- CreateIndex
CREATE INDEX "Listing_visible_idx" ON "Listing"("state", "listedAt", "id", "leftoverSeed", "expiresAt", "healthStatus", "ownerVerified", "calls30d");

-- CreateIndex
CREATE INDEX "Listing_popular_idx" ON "Listing"("state", "calls30d", "listedAt", "id", "leftoverSeed", "expiresAt", "healthStatus", "ownerVerified");

-- CreateIndex
CREATE INDEX "Listing_price_idx" ON "Listing"("state", "priceMicros", "listedAt" DESC, "id" DESC, "leftoverSeed", "expiresAt", "healthStatus", "ownerVerified", "calls30d");

-- AddForeignKey
ALTER TABLE "ListingHealth" ADD CONSTRAINT "ListingHealth_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "Listing"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HealthDay" ADD CONSTRAINT "HealthDay_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "Listing"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Written by hand: a listing may now be "delisted" by its owner (the state rule is the trigger's arguments).
DROP TRIGGER "Listing_state_check" ON "Listing";
CREATE TRIGGER "Listing_state_check" BEFORE INSERT OR UPDATE OF "state" ON "Listing"
    FOR EACH ROW EXECUTE FUNCTION "refuse_unknown_state"('pending', 'active', 'failed', 'delisted');

-- Existing rows: the price order, and owner-verified where sellerPayTo itself paid a settled fee.
UPDATE "Listing" SET "priceMicros" = CAST("priceAtomic" AS BIGINT);
UPDATE "Listing" l SET "ownerVerified" = true
WHERE EXISTS (SELECT 1 FROM "Payment" p WHERE p."listingId" = l."id" AND p."state" = 'settled' AND p."payer" = lower(l."sellerPayTo"));
