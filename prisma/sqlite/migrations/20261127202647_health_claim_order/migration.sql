-- DropIndex
DROP INDEX "ListingHealth_nextProbeAt_idx";

-- CreateIndex
CREATE INDEX "ListingHealth_nextProbeAt_listingId_idx" ON "ListingHealth"("nextProbeAt", "listingId");
