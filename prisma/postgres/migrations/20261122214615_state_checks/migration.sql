-- The database refuses a listing or payment state the service does not know.
-- Written by hand: Prisma's schema cannot declare the rule. Not as CHECK constraints: the schema
-- engine (wasm, through adapter-pg) panics describing a table that has one (it reads
-- pg_constraint.contype as a char, the adapter hands it over as text), which breaks diffMigration
-- and `npm run db:migration`. BEFORE triggers enforce the same rule, and Prisma's diff ignores them.

-- Refuse to install the rule over rows that already break it.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM "Listing" WHERE "state" NOT IN ('pending', 'active', 'failed'))
        OR EXISTS (SELECT 1 FROM "Payment" WHERE "state" NOT IN ('pending', 'settled', 'failed')) THEN
        RAISE EXCEPTION 'every_existing_row_has_a_known_state: a Listing or Payment row has a state outside the rule; fix it before migrating'
            USING ERRCODE = 'check_violation';
    END IF;
END $$;

-- The allowed states are the trigger's arguments.
CREATE FUNCTION "refuse_unknown_state"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT (NEW."state" = ANY (TG_ARGV)) THEN
        RAISE EXCEPTION '%_state_check: state must be one of %, got %', TG_TABLE_NAME, array_to_string(TG_ARGV, ', '), quote_nullable(NEW."state")
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER "Listing_state_check" BEFORE INSERT OR UPDATE OF "state" ON "Listing"
    FOR EACH ROW EXECUTE FUNCTION "refuse_unknown_state"('pending', 'active', 'failed');

CREATE TRIGGER "Payment_state_check" BEFORE INSERT OR UPDATE OF "state" ON "Payment"
    FOR EACH ROW EXECUTE FUNCTION "refuse_unknown_state"('pending', 'settled', 'failed');
