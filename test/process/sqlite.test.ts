// `npm start` as users run it, on the embedded SQLite default (a temp file) and the embedded local chain.
import { describe } from "vitest";
import { testDatabaseKinds } from "../storage/databases.js";
import { embeddedChainRun } from "./embedded-chain-run.js";

const sqlite = testDatabaseKinds().find((kind) => kind.kind === "sqlite")!;

describe("npm start on SQLite with its embedded local chain", () => {
  embeddedChainRun(() => sqlite.create());
});
