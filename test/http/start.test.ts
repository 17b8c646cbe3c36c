import { readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startService, type ServiceProcess } from "../support/process.js";

describe("npm start", () => {
  let service: ServiceProcess | undefined;
  afterAll(() => service?.kill());

  it("serves the contract with nothing else configured, logs JSON, and stops cleanly on SIGTERM", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "start-"));
    service = await startService({ DATABASE_URL: `file:${join(dataDir, "marketplace.db")}`, DEV_CHAIN_FILE: join(dataDir, "chain.json") });
    expect((await service.fetch("/openapi.json")).status).toBe(200);
    const stopped = await service.stop();
    expect(stopped).toMatchObject({ code: 0, leftovers: [] });
    const messages = service.logs.map((log) => log.msg);
    expect(messages).toContain("marketplace listening");
    expect(messages.at(-1)).toBe("stopped");
    expect(service.problems()).toEqual([]);
    // Without payment configuration: the embedded local chain, said plainly, its file written.
    expect(messages.some((message) => message.startsWith("LOCAL CHAIN, NOT REAL MONEY"))).toBe(true);
    const chainFile = JSON.parse(readFileSync(join(dataDir, "chain.json"), "utf8")) as { chainId: number; buyers: unknown[] };
    expect(chainFile).toMatchObject({ chainId: 8453, buyers: expect.arrayContaining([expect.objectContaining({ privateKey: expect.any(String) })]) });
  });
});
