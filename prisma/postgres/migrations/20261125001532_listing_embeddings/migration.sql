-- CreateTable
CREATE TABLE "ListingEmbedding" (
    "listingId" UUID NOT NULL,
    "model" TEXT NOT NULL,
    "textHash" TEXT NOT NULL,
    "vector" BYTEA NOT NULL,
    "embeddedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ListingEmbedding_pkey" PRIMARY KEY ("listingId")
);

-- AddForeignKey
ALTER TABLE "ListingEmbedding" ADD CONSTRAINT "ListingEmbedding_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "Listing"("id") ON DELETE CASCADE ON UPDATE CASCADE;
