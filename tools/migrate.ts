/**
 * `npm run db:migrate`: apply the committed migrations to DATABASE_URL
 * (default file:./data/marketplace.db; the directory is created).
 */
import { redact } from "../src/storage/connection.js";
import { applyMigrations } from "../src/storage/migrate.js";

const url = process.env.DATABASE_URL || "file:./data/marketplace.db";
try {
  const { applied } = await applyMigrations(url);
  console.log(
    applied.length
      ? `applied ${applied.length} migration(s) to ${redact(url)}:\n${applied.map((name) => `  ${name}`).join("\n")}`
      : `${redact(url)} is up to date`,
  );
} catch (error) {
  console.error(`migrating ${redact(url)} failed: ${(error as Error).message}`);
  process.exitCode = 1;
}
