// The ops area (spec/ops.tsp): every route answers as the contract says, never cached.
import { afterAll, beforeAll, expect } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { describeAreaRoutes, jsonOf, type RouteAnswer } from "./area-routes.js";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ METRICS_TOKEN: "ops-area-test-token-0123456789" });
});

afterAll(async () => {
  await server?.close();
});

const notCached = (answer: RouteAnswer) => expect(answer.headers.get("cache-control")).toBe("no-store");

describeAreaRoutes("ops", () => server, {
  getMetrics: {
    status: 200,
    request: { headers: { authorization: "Bearer ops-area-test-token-0123456789" } },
    check(answer) {
      notCached(answer);
      expect(answer.type).toBe("text/plain");
      expect(answer.text).toMatch(/^# HELP x402_http_requests_total /m);
      expect(answer.text).toMatch(/^process_cpu_seconds_total /m);
    },
  },
  getLiveness: {
    status: 200,
    check(answer) {
      notCached(answer);
      expect(jsonOf(answer)).toMatchObject({ status: "ok" });
    },
  },
  getReadiness: {
    status: 200,
    check(answer) {
      notCached(answer);
      expect(jsonOf(answer)).toMatchObject({
        status: "ready",
        checks: { database: { ok: true }, migrations: { ok: true }, payments: { ok: true } },
      });
    },
  },
});
