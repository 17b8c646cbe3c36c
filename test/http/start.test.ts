import { readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { describeStartupFailure } from "../../src/startup-failure.js";
import { startService, type ServiceProcess } from "../support/process.js";

describe("npm start", () => {
  let service: ServiceProcess | undefined;
  afterAll(() => service?.kill());

  it("serves the contract with nothing else configured, logs JSON, and stops cleanly on SIGTERM", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "start-"));
    service = await startService({
      DATABASE_URL: `file:${join(dataDir, "marketplace.db")}`,
      DEV_CHAIN_FILE: join(dataDir, "chain.json"),
    });
    expect((await service.fetch("/openapi.json")).status).toBe(200);
    const stopped = await service.stop();
    expect(stopped).toMatchObject({ code: 0, leftovers: [] });
    const messages = service.logs.map((log) => log.msg);
    expect(messages).toContain("marketplace listening");
    expect(messages.at(-1)).toBe("stopped");
    expect(service.problems()).toEqual([]);
    // Without payment configuration: the embedded local chain, said plainly, its file written.
    expect(messages.some((message) => message.startsWith("LOCAL CHAIN, NOT REAL MONEY"))).toBe(true);
    const chainFile = JSON.parse(readFileSync(join(dataDir, "chain.json"), "utf8")) as {
      chainId: number;
      buyers: unknown[];
    };
    expect(chainFile).toMatchObject({
      chainId: 8453,
      buyers: expect.arrayContaining([expect.objectContaining({ privateKey: expect.any(String) })]),
    });
  });
});

describe("npm start that cannot start", () => {
  it("says why in one line naming the setting, without the driver's stack or the URL's password, and exits 1", async () => {
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    const failed = startService({ DATABASE_URL: "postgresql://market:hunter2@127.0.0.1:1/market" });
    const error = (await failed.then(
      () => new Error("it started"),
      (refused: unknown) => refused as Error,
    )) as Error;
    expect(error.message).toMatch(/exited \(1\) before listening/);
    const stderr = error.message.split("--- stderr\n")[1] ?? "";
    const lines = stderr.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("npm "));
    expect(lines).toEqual([
      expect.stringMatching(/^could not start: the database cannot be reached: check DATABASE_URL/),
    ]);
    expect(stderr).not.toContain("hunter2");
    expect(stderr).not.toMatch(/\bat .*(wasm|\.js:\d+)/);
  });

  it("names the cause for a port in use, a path that cannot be written and an unknown error", () => {
    const inUse = Object.assign(new Error("listen EADDRINUSE: address already in use 127.0.0.1:8402"), {
      code: "EADDRINUSE",
      syscall: "listen",
    });
    expect(describeStartupFailure(inUse)).toBe(
      "could not start: the port is already in use: stop the other process or set PORT (listen EADDRINUSE: address already in use 127.0.0.1:8402)",
    );
    const notADirectory = Object.assign(new Error("EEXIST: file already exists, mkdir '/etc/passwd'"), {
      code: "EEXIST",
      syscall: "mkdir",
    });
    expect(describeStartupFailure(notADirectory)).toMatch(
      /^could not start: a file cannot be created or opened for writing: check the paths in DATABASE_URL/,
    );
    expect(
      describeStartupFailure(new Error("rpc https://user:secret@node.example/v1 said no\n    at frame (x.js:1:1)")),
    ).toBe("could not start: rpc https://[redacted]@node.example/v1 said no");
  });
});
