// `npm start` as users run it, on PostgreSQL (a fresh schema) with its embedded local chain.
// Skipped without TEST_POSTGRES_URL.
import { describe } from "vitest";
import { testDatabaseKinds } from "../storage/databases.js";
import { embeddedChainRun } from "./embedded-chain-run.js";

const postgres = testDatabaseKinds().find((kind) => kind.kind === "postgres");

describe.skipIf(!postgres)("npm start on PostgreSQL with its embedded local chain", () => {
  embeddedChainRun(() => postgres!.create());
});
