import { destination, pino, type DestinationStream, type Logger } from "pino";
import { currentRequest } from "./request-context.js";

export type { Logger };

/**
 * Structured JSON logs on stdout, written synchronously: the service logs little at info, and a
 * synchronous write cannot be lost at exit or overtaken by the exit's own flush (with pino's
 * asynchronous default, "stopped" was seen before "shutting down").
 */
export function createLogger(level: string, to: DestinationStream = destination({ dest: 1, sync: true })): Logger {
  return pino(
    {
      level,
      base: { service: "x402-marketplace" },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Every line written while a request is answered (its payment, its probe) names the request.
      mixin: () => {
        const request = currentRequest();
        return request ? { requestId: request.id } : {};
      },
    },
    to,
  );
}
