-- CreateTable
CREATE TABLE "ListingEvent" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "id" TEXT NOT NULL,
    "listingId" TEXT NOT NULL,
    "sellerPayTo" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "status" JSONB NOT NULL,
    "data" JSONB,
    "at" DATETIME NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "ListingEvent_id_key" ON "ListingEvent"("id");

-- CreateIndex
CREATE INDEX "ListingEvent_listingId_seq_idx" ON "ListingEvent"("listingId", "seq");

-- CreateIndex
CREATE INDEX "ListingEvent_sellerPayTo_seq_idx" ON "ListingEvent"("sellerPayTo", "seq");

-- CreateIndex
CREATE INDEX "ListingEvent_at_idx" ON "ListingEvent"("at");
