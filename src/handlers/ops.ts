// The ops area (spec/ops.tsp): Prometheus metrics, liveness and readiness, for operators and load
// balancers. Never cached (Cache-Control: no-store), and not listed in any catalog document.
import { timingSafeEqual } from "node:crypto";
import { HttpError } from "../contract/errors.js";
import { registry } from "../metrics.js";
import type { Handler } from "../services.js";
import type { AreaHandlers } from "./area-handlers.js";

const NO_STORE = { "Cache-Control": "no-store" } as const;

function bearerMatches(header: string | undefined, token: string): boolean {
  const sent = Buffer.from(/^Bearer (.+)$/i.exec(header ?? "")?.[1] ?? "");
  const expected = Buffer.from(token);
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

/** `/metrics`: the Prometheus text format; with METRICS_TOKEN set, only for `Authorization: Bearer <token>`. */
const getMetrics: Handler<"getMetrics"> = async (input, { config }) => {
  const token = config.ops.metricsToken;
  if (token && !bearerMatches(input.headers.authorization, token)) {
    throw new HttpError(401, "unauthorized", "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.", undefined, {
      "WWW-Authenticate": 'Bearer realm="metrics"',
      ...NO_STORE,
    });
  }
  return {
    status: 200,
    headers: { ...NO_STORE, "Content-Type": "text/plain" },
    contentType: "text/plain",
    body: await registry.metrics(),
  };
};

/** `/livez`: the process answers. */
const getLiveness: Handler<"getLiveness"> = () => ({
  status: 200,
  headers: NO_STORE,
  body: { status: "ok", uptimeSeconds: Math.round(process.uptime() * 1000) / 1000 },
});

/** `/readyz`: 200 when the database, the migrations and the payment backend are fine, else 503. */
const getReadiness: Handler<"getReadiness"> = async (_input, services) => {
  const report = await services.readiness();
  if (report.status === "ready") return { status: 200, headers: NO_STORE, body: report };
  return { status: 503, headers: NO_STORE, body: report };
};

export const opsHandlers: AreaHandlers<"ops"> = { getMetrics, getLiveness, getReadiness };
