-- CreateIndex
CREATE INDEX "Listing_updatedAt_idx" ON "Listing"("updatedAt", "id");
