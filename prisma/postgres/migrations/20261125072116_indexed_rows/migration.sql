-- AlterTable
ALTER TABLE "Listing" ADD COLUMN     "indexedKey" TEXT,
ADD COLUMN     "indexedSource" TEXT,
ADD COLUMN     "provenance" JSONB;

-- CreateTable
CREATE TABLE "IndexCheckpoint" (
    "source" TEXT NOT NULL,
    "cursor" TEXT,
    "updatedSince" TEXT,
    "passStartedAt" TIMESTAMPTZ(3),
    "lastRunAt" TIMESTAMPTZ(3),
    "lastCompletedAt" TIMESTAMPTZ(3),
    "lastProblem" TEXT,
    "lastCounts" JSONB,

    CONSTRAINT "IndexCheckpoint_pkey" PRIMARY KEY ("source")
);

-- CreateIndex
CREATE UNIQUE INDEX "Listing_indexedKey_key" ON "Listing"("indexedKey");

-- Written by hand: indexed rows (issue 28) are "indexing" until our probe confirms their 402, then "indexed".
DROP TRIGGER "Listing_state_check" ON "Listing";
CREATE TRIGGER "Listing_state_check" BEFORE INSERT OR UPDATE OF "state" ON "Listing"
    FOR EACH ROW EXECUTE FUNCTION "refuse_unknown_state"('pending', 'active', 'failed', 'delisted', 'indexing', 'indexed');
