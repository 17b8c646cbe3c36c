-- CreateTable
CREATE TABLE "ListingEmbedding" (
    "listingId" TEXT NOT NULL PRIMARY KEY,
    "model" TEXT NOT NULL,
    "textHash" TEXT NOT NULL,
    "vector" BLOB NOT NULL,
    "embeddedAt" DATETIME NOT NULL,
    CONSTRAINT "ListingEmbedding_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "Listing" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
