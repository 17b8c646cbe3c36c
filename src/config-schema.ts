// Every environment variable, declared once (issue 44): src/config*.ts parse through `envReader`,
// and `npm run generate` writes .env.example and docs/configuration.md from the same entries.
import { SERVICE_VARIABLES } from "./config-vars-service.js";
import { LIMIT_VARIABLES } from "./config-vars-limits.js";
import { PAYMENT_VARIABLES } from "./config-vars-payments.js";

/** The areas, in the order .env.example and docs/configuration.md list them. */
export const AREAS = {
  http: "HTTP",
  storage: "Storage",
  payments: "Payments and facilitator",
  probe: "Seller probe",
  work: "Request limits (a CPU budget for requests anyone can send)",
  health: "Listing health",
  usage: "Usage from the chain",
  events: "Listing events and webhooks",
  discovery: "Discovery and indexing",
  search: "Search",
  ops: "Operations: limits shared through Redis, metrics, logs",
  process: "Process",
  machine: "The machine (where tools are installed; not in .env.example)",
  toolkit: "CLI and client (read by `x402-market` and the client library, not by the service)",
} as const;

export type Area = keyof typeof AREAS;

/** The areas of the service's own settings: .env.example lists these (and test/support/process.ts clears them). */
export const SERVICE_AREAS: readonly Area[] = (Object.keys(AREAS) as Area[]).filter(
  (area) => area !== "machine" && area !== "toolkit",
);

interface Declared {
  name: string;
  area: Area;
  /** What it does, in Markdown (one sentence or a few). */
  meaning: string;
  /** Never echoed in a problem message, never given a value in .env.example. */
  secret?: boolean;
  /** The default as documented, when it is not a plain value (computed, or depending on the mode). */
  defaultText?: string;
  /** The line .env.example gives it, when not the default ("" leaves it empty). */
  example?: string;
}

export interface IntegerVariable extends Declared {
  kind: "integer";
  default: number;
  min: number;
  max: number;
}
export interface FractionVariable extends Declared {
  kind: "fraction";
  default: number;
}
export interface FlagVariable extends Declared {
  kind: "flag";
  default: boolean;
}
/** Free text, validated by its parser in src/config*.ts; `bounds` says what it accepts. */
export interface TextVariable extends Declared {
  kind: "text";
  default: string | null;
  bounds?: string;
}

export type Variable = IntegerVariable | FractionVariable | FlagVariable | TextVariable;

export const VARIABLES = [
  ...SERVICE_VARIABLES,
  ...PAYMENT_VARIABLES,
  ...LIMIT_VARIABLES,
] as const satisfies readonly Variable[];

type Entry = (typeof VARIABLES)[number];
export type VariableName = Entry["name"];
type NameOf<Kind extends Variable["kind"]> = Extract<Entry, { kind: Kind }>["name"];

const BY_NAME = new Map<string, Variable>(VARIABLES.map((variable) => [variable.name, variable]));

/** The declaration of a variable. */
export function declared<Name extends VariableName>(name: Name): Extract<Entry, { name: Name }> {
  return BY_NAME.get(name) as Extract<Entry, { name: Name }>;
}

/** The bounds a variable accepts, as docs/configuration.md shows them. */
export function boundsOf(variable: Variable): string {
  switch (variable.kind) {
    case "integer":
      return `${variable.min} to ${variable.max}`;
    case "fraction":
      return "0 to 1";
    case "flag":
      return "true or false (also 1/0, yes/no, on/off)";
    case "text":
      return variable.bounds ?? "";
  }
}

export type Env = Record<string, string | undefined>;

/**
 * Reads declared variables from `env`: defaults and bounds come from the declaration, each bad value
 * adds a problem naming the variable and gives the default back, so every problem is reported at once.
 */
export function envReader(env: Env, problems: string[]) {
  return {
    /** The raw value, for a variable whose parser lives beside its use. */
    raw: (name: VariableName): string | undefined => env[name],
    /** The value, or the declared (or given) default when unset or empty. */
    text: (name: NameOf<"text">, fallback?: string): string => env[name] || (fallback ?? declared(name).default ?? ""),
    integer: (name: NameOf<"integer">, fallback?: number): number => {
      const { default: declaredDefault, min, max } = declared(name);
      const raw = env[name];
      if (raw === undefined || raw === "") return fallback ?? declaredDefault;
      const value = Number(raw);
      if (!/^\d+$/.test(raw) || value < min || value > max) {
        problems.push(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
        return fallback ?? declaredDefault;
      }
      return value;
    },
    flag: (name: NameOf<"flag">, fallback?: boolean): boolean => {
      const given = fallback ?? declared(name).default;
      const raw = env[name]?.toLowerCase();
      if (raw === undefined || raw === "") return given;
      if (["1", "true", "yes", "on"].includes(raw)) return true;
      if (["0", "false", "no", "off"].includes(raw)) return false;
      problems.push(`${name} must be true or false, got "${env[name]}"`);
      return given;
    },
    fraction: (name: NameOf<"fraction">): number => {
      const given = declared(name).default;
      const raw = env[name];
      if (raw === undefined || raw.trim() === "") return given;
      const value = Number(raw);
      if (Number.isFinite(value) && value >= 0 && value <= 1) return value;
      problems.push(`${name} must be a number from 0 to 1, got "${raw}"`);
      return given;
    },
  };
}

export type EnvReader = ReturnType<typeof envReader>;
