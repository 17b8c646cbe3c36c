// The SQLite triggers by which the database refuses an unknown listing or payment state (the
// *_state_checks migration installed them). A migration that rebuilds Listing or Payment drops them
// with the table, so `npm run db:migration` appends these again (tools/new-migration.ts).
import { LISTING_STATES, PAYMENT_STATES } from "./listing-types.js";

function triggers(table: "Listing" | "Payment", states: readonly string[]): string {
  const allowed = states.map((state) => `'${state}'`).join(", ");
  const message = `${table}_state_check: state must be ${states.slice(0, -1).join(", ")} or ${states.at(-1)}`;
  const trigger = (
    event: "insert" | "update",
    on: string,
  ) => `CREATE TRIGGER "${table}_state_check_${event}" ${on} ON "${table}"
WHEN NEW."state" NOT IN (${allowed}) BEGIN
    SELECT RAISE(ABORT, '${message}');
END;`;
  return `${trigger("insert", "BEFORE INSERT")}\n\n${trigger("update", 'BEFORE UPDATE OF "state"')}\n`;
}

export const SQLITE_STATE_CHECK_SQL = {
  Listing: triggers("Listing", LISTING_STATES),
  Payment: triggers("Payment", PAYMENT_STATES),
} as const;
