// Search indexes that Prisma's schema language cannot declare. tools/new-migration.ts
// appends them to a migration that creates (or, on SQLite, redefines) Listing.

/** FTS5 table and its shadow tables: Prisma's diff must leave them alone. */
export const SQLITE_SEARCH_TABLES = [
  "ListingSearch",
  "ListingSearch_config",
  "ListingSearch_data",
  "ListingSearch_docsize",
  "ListingSearch_idx",
];

/** The Listing columns a search matches, in the order of the FTS table's columns. */
export const SEARCHED_COLUMNS = ["description", "resource", "sellerPayTo", "serviceName", "tags"] as const;

const columns = SEARCHED_COLUMNS.map((c) => `"${c}"`).join(", ");
const values = (row: "new" | "old") => SEARCHED_COLUMNS.map((c) => `${row}."${c}"`).join(", ");

/**
 * External-content FTS5 table keyed by Listing's implicit rowid. Idempotent, and it
 * ends with a rebuild, because Prisma's SQLite "RedefineTables" migrations copy
 * Listing into a new table: that drops the triggers and renumbers the rowids.
 */
export const SQLITE_SEARCH_SQL = `-- Search: FTS5 trigram index over Listing (${SEARCHED_COLUMNS.join(", ")}), kept in sync by triggers.
CREATE VIRTUAL TABLE IF NOT EXISTS "ListingSearch" USING fts5(
    ${columns},
    content = 'Listing', content_rowid = 'rowid', tokenize = 'trigram'
);

DROP TRIGGER IF EXISTS "Listing_search_insert";
CREATE TRIGGER "Listing_search_insert" AFTER INSERT ON "Listing" BEGIN
    INSERT INTO "ListingSearch" ("rowid", ${columns})
    VALUES (new."rowid", ${values("new")});
END;

DROP TRIGGER IF EXISTS "Listing_search_delete";
CREATE TRIGGER "Listing_search_delete" AFTER DELETE ON "Listing" BEGIN
    INSERT INTO "ListingSearch" ("ListingSearch", "rowid", ${columns})
    VALUES ('delete', old."rowid", ${values("old")});
END;

DROP TRIGGER IF EXISTS "Listing_search_update";
CREATE TRIGGER "Listing_search_update" AFTER UPDATE OF ${columns} ON "Listing" BEGIN
    INSERT INTO "ListingSearch" ("ListingSearch", "rowid", ${columns})
    VALUES ('delete', old."rowid", ${values("old")});
    INSERT INTO "ListingSearch" ("rowid", ${columns})
    VALUES (new."rowid", ${values("new")});
END;

INSERT INTO "ListingSearch" ("ListingSearch") VALUES ('rebuild');
`;

/**
 * The GIN trigram indexes themselves are declared in the schema (pg-only lines), so
 * Prisma's diff knows them; only the extension is raw SQL. It goes to public, where
 * search_path always finds its operator classes, also for `?schema=` databases.
 */
export const POSTGRES_SEARCH_SQL = `-- Search: pg_trgm backs the GIN trigram indexes on Listing.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
`;

/**
 * Listing's own GIN trigram indexes, by name and definition. Found through `pg_index.indrelid`, not
 * the `pg_indexes` view: a filter on the view's `indexdef` runs `pg_get_indexdef` on every index of
 * the database, and one that another session drops meanwhile fails the query ("could not open
 * relation with OID"). Keep the rows whose definition names `gin_trgm_ops`.
 */
export const LISTING_INDEXES_SQL = `SELECT i.relname AS name, pg_get_indexdef(i.oid) AS definition
  FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
  WHERE x.indrelid = '"Listing"'::regclass ORDER BY i.relname`;

export const isTrigramIndex = (index: { definition: string }): boolean => index.definition.includes("gin_trgm_ops");
