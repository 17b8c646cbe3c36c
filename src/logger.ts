import { pino, type Logger } from "pino";

export type { Logger };

/** Structured JSON logs on stdout. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: "x402-marketplace" }, timestamp: pino.stdTimeFunctions.isoTime });
}
