-- AlterTable
ALTER TABLE "Listing" ADD COLUMN "indexedKey" TEXT;
ALTER TABLE "Listing" ADD COLUMN "indexedSource" TEXT;
ALTER TABLE "Listing" ADD COLUMN "provenance" JSONB;

-- CreateTable
CREATE TABLE "IndexCheckpoint" (
    "source" TEXT NOT NULL PRIMARY KEY,
    "cursor" TEXT,
    "updatedSince" TEXT,
    "passStartedAt" DATETIME,
    "lastRunAt" DATETIME,
    "lastCompletedAt" DATETIME,
    "lastProblem" TEXT,
    "lastCounts" JSONB
);

-- CreateIndex
CREATE UNIQUE INDEX "Listing_indexedKey_key" ON "Listing"("indexedKey");

-- Written by hand: indexed rows (issue 28) are "indexing" until our probe confirms their 402, then "indexed".
DROP TRIGGER "Listing_state_check_insert";
DROP TRIGGER "Listing_state_check_update";
CREATE TRIGGER "Listing_state_check_insert" BEFORE INSERT ON "Listing"
WHEN NEW."state" NOT IN ('pending', 'active', 'failed', 'delisted', 'indexing', 'indexed') BEGIN
    SELECT RAISE(ABORT, 'Listing_state_check: state must be pending, active, failed, delisted, indexing or indexed');
END;

CREATE TRIGGER "Listing_state_check_update" BEFORE UPDATE OF "state" ON "Listing"
WHEN NEW."state" NOT IN ('pending', 'active', 'failed', 'delisted', 'indexing', 'indexed') BEGIN
    SELECT RAISE(ABORT, 'Listing_state_check: state must be pending, active, failed, delisted, indexing or indexed');
END;
