// The `/kr-*` demo rows keep their ids across restarts: a link to /listing/{id} of a demo row must
// keep working after the service restarts, on another port (PORT=0 picks a new one each time) too.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startTestServer } from "../support/server.js";

async function seedIds(databaseUrl: string, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const server = await startTestServer({ DATABASE_URL: databaseUrl, LOAD_SEED: "true", ...extra });
  try {
    const response = await server.fetch("/discovery/resources?includeSeed=true");
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      items: Array<{ resource: string; metadata: { listingId: string; leftoverSeed?: boolean } }>;
    };
    const ids = Object.fromEntries(
      body.items
        .filter((item) => item.metadata.leftoverSeed)
        .map((item) => [new URL(item.resource).pathname, item.metadata.listingId]),
    );
    expect(Object.keys(ids).sort()).toEqual(["/kr-echo", "/kr-fortune", "/kr-time"]);
    for (const id of Object.values(ids)) expect((await server.fetch(`/listings/${id}`)).status).toBe(200);
    return ids;
  } finally {
    await server.close();
  }
}

describe("seed listings", () => {
  it(
    "keep their ids across restarts on the same database, whatever port or public origin",
    { timeout: 120_000 },
    async () => {
      const databaseUrl = `file:${join(mkdtempSync(join(tmpdir(), "marketplace-seed-")), "marketplace.db")}`;
      const first = await seedIds(databaseUrl);
      const second = await seedIds(databaseUrl);
      expect(second).toEqual(first);
      const moved = await seedIds(databaseUrl, { PUBLIC_BASE_URL: "https://market.example" });
      expect(moved).toEqual(first);
      // Another database (another instance) gives the demo rows the same ids.
      const elsewhere = await seedIds(
        `file:${join(mkdtempSync(join(tmpdir(), "marketplace-seed-")), "marketplace.db")}`,
      );
      expect(elsewhere).toEqual(first);
    },
  );
});
