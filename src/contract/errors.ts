import type { ErrorObject } from "ajv";
import type { components } from "../../generated/openapi.js";

export type FieldError = components["schemas"]["FieldError"];
export type ErrorBody = components["schemas"]["ErrorBody"];

/** An error answer with a JSON body; thrown anywhere below the Koa adapter. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }

  toBody(operation?: string): ErrorBody {
    return {
      error: this.code,
      message: this.message,
      ...(this.fields ? { fields: this.fields } : {}),
      ...(operation ? { operation } : {}),
    };
  }
}

const LOCATIONS: Record<string, FieldError["in"]> = {
  query: "query",
  requestBody: "body",
  headers: "header",
  path: "path",
};

const refusesControls = new Map<string, boolean>();

/**
 * Whether a contract pattern is the plain-text one (anything but control characters): its Ajv
 * message would quote the regular expression, which tells a client less than the plain words.
 */
function isPlainTextPattern(pattern: string): boolean {
  let known = refusesControls.get(pattern);
  if (known === undefined) {
    const regex = new RegExp(pattern, "u");
    known =
      regex.test("any text, 'quoted' & <marked>") && ["\u0000", "\u001f", "\u007f"].every((c) => !regex.test(`a${c}b`));
    if (refusesControls.size < 64) refusesControls.set(pattern, known);
  }
  return known;
}

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "pattern":
      return isPlainTextPattern(String(params.pattern))
        ? "must not contain control characters (U+0000 to U+001F, U+007F)"
        : (error.message ?? "is invalid");
    case "required":
      return "is required";
    case "additionalProperties":
      return "is not an allowed field";
    case "enum":
      return `must be one of: ${(params.allowedValues as unknown[]).map(String).join(", ")}`;
    case "const":
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case "format":
      return `must be a valid ${String(params.format)}`;
    default:
      return error.message ?? "is invalid";
  }
}

/** Ajv errors from openapi-backend -> one entry per offending field, named as a client sent it. */
export function fieldErrorsFromAjv(errors: ErrorObject[]): FieldError[] {
  const seen = new Set<string>();
  const fields: FieldError[] = [];
  for (const error of errors) {
    const [, root = "", ...rest] = error.instancePath.split("/");
    const params = error.params as Record<string, unknown>;
    const extra = (params.missingProperty ?? params.additionalProperty) as string | undefined;
    const segments = extra === undefined ? rest : [...rest, extra];
    const location = LOCATIONS[root] ?? "body";
    if (root === "" && extra === "requestBody") {
      fields.push({ in: "body", field: "", message: "a JSON body is required" });
      continue;
    }
    const field = location === "body" ? `/${segments.join("/")}` : segments.join(".");
    const message = describe(error);
    const key = `${location}|${field}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    fields.push({ in: location, field: location === "header" ? field.toLowerCase() : field, message });
  }
  return fields;
}

export function summarise(fields: FieldError[]): string {
  return fields
    .slice(0, 5)
    .map((field) => `${field.in} ${field.field || "body"} ${field.message}`)
    .join("; ");
}
