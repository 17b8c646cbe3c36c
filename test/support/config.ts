import { ConfigError, loadConfig } from "../../src/config.js";

/** The problems loadConfig reports for an environment; empty when it accepts it. */
export function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
