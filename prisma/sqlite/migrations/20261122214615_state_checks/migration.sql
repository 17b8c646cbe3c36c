-- The database refuses a listing or payment state the service does not know.
-- Written by hand: Prisma's schema cannot declare CHECK constraints. SQLite cannot ADD CONSTRAINT
-- to an existing table, and rebuilding Listing would drop the FTS triggers, renumber the rowids the
-- search index is keyed by and recreate every index; BEFORE triggers enforce the same rule without
-- touching a row, an index or the search triggers. (Prisma's diff ignores triggers, as it ignores
-- the FTS ones.) A later migration that redefines Listing or Payment drops these triggers with the
-- table: it must install them again (test/storage/state-checks.test.ts fails if it does not).

-- Refuse to install the rule over rows that already break it (PostgreSQL's ADD CONSTRAINT does too).
CREATE TEMP TABLE "state_check_existing_rows" ("bad" INTEGER NOT NULL CONSTRAINT "every_existing_row_has_a_known_state" CHECK ("bad" = 0));
INSERT INTO "state_check_existing_rows" SELECT count(*) FROM "Listing" WHERE "state" NOT IN ('pending', 'active', 'failed');
INSERT INTO "state_check_existing_rows" SELECT count(*) FROM "Payment" WHERE "state" NOT IN ('pending', 'settled', 'failed');
DROP TABLE "state_check_existing_rows";

CREATE TRIGGER "Listing_state_check_insert" BEFORE INSERT ON "Listing"
WHEN NEW."state" NOT IN ('pending', 'active', 'failed') BEGIN
    SELECT RAISE(ABORT, 'Listing_state_check: state must be pending, active or failed');
END;

CREATE TRIGGER "Listing_state_check_update" BEFORE UPDATE OF "state" ON "Listing"
WHEN NEW."state" NOT IN ('pending', 'active', 'failed') BEGIN
    SELECT RAISE(ABORT, 'Listing_state_check: state must be pending, active or failed');
END;

CREATE TRIGGER "Payment_state_check_insert" BEFORE INSERT ON "Payment"
WHEN NEW."state" NOT IN ('pending', 'settled', 'failed') BEGIN
    SELECT RAISE(ABORT, 'Payment_state_check: state must be pending, settled or failed');
END;

CREATE TRIGGER "Payment_state_check_update" BEFORE UPDATE OF "state" ON "Payment"
WHEN NEW."state" NOT IN ('pending', 'settled', 'failed') BEGIN
    SELECT RAISE(ABORT, 'Payment_state_check: state must be pending, settled or failed');
END;
