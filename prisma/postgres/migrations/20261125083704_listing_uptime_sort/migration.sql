-- AlterTable
ALTER TABLE "Listing" ADD COLUMN     "uptime7d" DOUBLE PRECISION NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "Listing_uptime_idx" ON "Listing"("state", "uptime7d", "listedAt", "id", "leftoverSeed", "expiresAt", "healthStatus", "ownerVerified", "calls30d");

-- Backfill: the 7-day uptime each listing's published health summary already shows (the sort=uptime order).
UPDATE "Listing" SET "uptime7d" = ("healthSummary"->>'uptime7d')::DOUBLE PRECISION
WHERE jsonb_typeof("healthSummary"->'uptime7d') = 'number';
