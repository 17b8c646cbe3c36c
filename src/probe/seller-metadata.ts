// The service metadata a seller declares in its own 402 challenge, read at probe time: the
// resource's mimeType, serviceName, tags and iconUrl, and extensions.bazaar. The Bazaar spec's
// metadata rules (x402 specs/extensions/bazaar.md, "Service Metadata on resource") are soft-drop:
// a field that breaks its rule is discarded and the rest kept, so metadata never refuses a listing.
import type { PaymentRequired } from "@x402/core/types";
import {
  isValidRouteTemplate,
  sanitizeResourceServiceMetadata,
  validateDiscoveryExtensionSpec,
} from "@x402/extensions/bazaar";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { LRUCache } from "lru-cache";
import { isJsonObject } from "../contract/json.js";
import { RESOURCE_METADATA_FIELDS, type SellerMetadata } from "../storage/listing-types.js";

/** The largest extensions.bazaar kept (its JSON, in bytes); a larger one is dropped whole. */
export const BAZAAR_MAX_BYTES = 16 * 1024;
export const BAZAAR_MAX_DEPTH = 32;
const MIME_TYPE_MAX_LENGTH = 127;

export interface ReadMetadata {
  /** What would be stored: only fields that passed their rule. */
  metadata: SellerMetadata;
  /** Each declared field that was discarded, with why ("iconUrl: not a public http(s) URL"). */
  dropped: string[];
}

type JsonObject = Record<string, unknown>;

/**
 * The challenge without the resource's metadata fields (RESOURCE_METADATA_FIELDS: the probe reads
 * them here, never through the SDK's strict schema), for the SDK's PaymentRequiredV2Schema: that
 * schema refuses the whole challenge for a 33-character serviceName or a sixth tag, where the
 * Bazaar rules drop only the field.
 */
export function withoutResourceMetadata(challenge: unknown): unknown {
  if (!isJsonObject(challenge) || !isJsonObject(challenge.resource)) return challenge;
  const resource = { ...challenge.resource };
  for (const field of RESOURCE_METADATA_FIELDS) delete resource[field];
  return { ...challenge, resource };
}

/** The sanitised metadata of a raw (decoded, unparsed) x402 v2 challenge. */
export function readSellerMetadata(challenge: unknown): ReadMetadata {
  const metadata: SellerMetadata = {};
  const dropped: string[] = [];
  if (!isJsonObject(challenge)) return { metadata, dropped };
  const resource = isJsonObject(challenge.resource) ? challenge.resource : {};

  if (resource.mimeType !== undefined && resource.mimeType !== null) {
    if (isMimeType(resource.mimeType)) metadata.mimeType = resource.mimeType;
    else dropped.push("mimeType: not a media type (type/subtype, printable ASCII)");
  }

  const service = sanitizeResourceServiceMetadata(resource as unknown as PaymentRequired["resource"]);
  if (service.serviceName !== undefined) metadata.serviceName = service.serviceName;
  else if (resource.serviceName !== undefined) dropped.push("serviceName: not 1 to 32 printable ASCII characters");
  if (service.tags !== undefined) metadata.tags = service.tags;
  const declaredTags = Array.isArray(resource.tags) ? resource.tags.length : resource.tags === undefined ? 0 : 1;
  if (declaredTags > (service.tags?.length ?? 0)) {
    dropped.push(
      `tags: kept ${service.tags?.length ?? 0} of ${declaredTags} (at most 5, each 1 to 32 printable ASCII characters, no duplicates ignoring case)`,
    );
  }
  if (service.iconUrl !== undefined && !loopbackWithTrailingDot(service.iconUrl)) metadata.iconUrl = service.iconUrl;
  else if (resource.iconUrl !== undefined)
    dropped.push("iconUrl: not an http(s) URL on a public host name (no IP literal, localhost or user@)");

  const declaredBazaar = isJsonObject(challenge.extensions) ? challenge.extensions.bazaar : undefined;
  if (declaredBazaar !== undefined) {
    const bazaar = sanitizeBazaar(declaredBazaar);
    if ("problem" in bazaar) dropped.push(`extensions.bazaar: ${bazaar.problem}`);
    else metadata.bazaar = bazaar.kept as SellerMetadata["bazaar"];
  }
  return { metadata, dropped };
}

/** How the probe's report names each kept field, in the report's order (every SellerMetadata field has one). */
const DESCRIBED: { [K in keyof SellerMetadata]-?: (value: NonNullable<SellerMetadata[K]>) => string } = {
  serviceName: (name) => `serviceName ${JSON.stringify(name)}`,
  tags: (tags) => `tags ${tags.map((tag) => JSON.stringify(tag)).join(", ")}`,
  iconUrl: () => "iconUrl",
  mimeType: (type) => `mimeType ${type}`,
  bazaar: () => "extensions.bazaar",
};

/** What the metadata adds to the probe's report: what would be stored, and what was dropped. */
export function describeMetadata({ metadata, dropped }: ReadMetadata): string {
  const kept = Object.entries(DESCRIBED).flatMap(([field, describe]) => {
    const value = metadata[field as keyof SellerMetadata];
    return value ? [(describe as (value: unknown) => string)(value)] : [];
  });
  const parts = [`service metadata kept: ${kept.length > 0 ? kept.join("; ") : "none declared"}`];
  if (dropped.length > 0) parts.push(`dropped: ${dropped.join("; ")}`);
  return parts.join("; ");
}

/** `localhost.` is localhost: the SDK's rule compares the host name without removing a final dot. */
function loopbackWithTrailingDot(iconUrl: string): boolean {
  const url = new URL(iconUrl);
  if (!url.hostname.endsWith(".")) return false;
  url.hostname = url.hostname.replace(/\.+$/, "");
  return !sanitizeResourceServiceMetadata({ url: "", iconUrl: url.href }).iconUrl;
}

function isMimeType(value: unknown): value is string {
  if (typeof value !== "string" || value.length > MIME_TYPE_MAX_LENGTH) return false;
  // type/subtype with optional parameters (RFC 9110 tokens), no control characters.
  return /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(?:\s*;\s*[\w!#$&^.+-]+=(?:[\w!#$&^.+-]+|"[\x20-\x21\x23-\x5b\x5d-\x7e]*"))*$/.test(
    value,
  );
}

type BazaarVerdict = { kept: JsonObject } | { problem: string };

/**
 * extensions.bazaar as it is stored: `info` and `schema` (and a valid `routeTemplate`), only when
 * `info` validates against `schema` (the SDK's validateDiscoveryExtension, as the spec asks of a
 * facilitator). A schema with an external `$ref`/`$id` is refused, never resolved: the whole
 * extension is dropped, since a schema with a reference removed would no longer say what the seller
 * meant. So is one larger than BAZAAR_MAX_BYTES, deeper than BAZAAR_MAX_DEPTH, with text no
 * database stores, or with a regular expression that can backtrack exponentially (the schema is
 * compiled and run here, on text the seller chose).
 */
export function sanitizeBazaar(declared: unknown): BazaarVerdict {
  if (!isJsonObject(declared)) return { problem: "not an object" };
  if (!isJsonObject(declared.info)) return { problem: "has no info object" };
  if (!isJsonObject(declared.schema)) return { problem: "has no schema object" };
  const kept: JsonObject = { info: declared.info, schema: declared.schema };
  if (typeof declared.routeTemplate === "string" && isValidRouteTemplate(declared.routeTemplate))
    kept.routeTemplate = declared.routeTemplate;

  const shape = shapeProblem(kept);
  if (shape) return { problem: shape };
  // Measured only once the depth is known to be small: JSON.stringify recurses.
  const bytes = Buffer.byteLength(JSON.stringify(kept));
  if (bytes > BAZAAR_MAX_BYTES) return { problem: `is ${bytes} bytes as JSON; at most ${BAZAAR_MAX_BYTES} are kept` };
  const schemaProblem = referenceOrRegexProblem(declared.schema);
  if (schemaProblem) return { problem: schemaProblem };

  const spec = validateDiscoveryExtensionSpec(kept);
  if (!spec.valid) return { problem: `info does not follow the Bazaar spec (${firstError(spec.errors)})` };
  const validated = validateAgainstSchema(declared.schema, declared.info);
  if (validated) return { problem: `info does not validate against its schema (${firstError(validated)})` };
  return { kept };
}

/**
 * The SDK's validateDiscoveryExtension (same Ajv 2020-12 options) without its cost: it builds a new
 * Ajv and compiles the seller's schema on every call, about 12-22 ms each, most of it compiling the
 * 2020-12 meta-schema again. One Ajv instance compiles each distinct schema once (about 1 ms) and
 * the compiled validator is kept, by the schema's JSON text, for the next probe of the same
 * listing. The schema is removed from the instance at once (the compiled function stays usable), so
 * schemas sharing an `$id` never collide and the instance holds nothing between calls.
 */
const ajv = new Ajv2020({ strict: false, allErrors: true });
const compiledSchemas = new LRUCache<string, ValidateFunction | { invalid: string }>({
  max: 1_000,
  maxSize: 4 * 1024 * 1024,
  sizeCalculation: (_, key) => key.length + 1,
});

/** null when `info` validates against `schema`, else the errors as the SDK words them. */
export function validateAgainstSchema(schema: JsonObject, info: unknown): string[] | null {
  const key = JSON.stringify(schema);
  let validate = compiledSchemas.get(key);
  if (!validate) {
    try {
      validate = ajv.compile(schema);
    } catch (error) {
      validate = { invalid: `Schema validation failed: ${error instanceof Error ? error.message : String(error)}` };
    } finally {
      ajv.removeSchema(schema);
    }
    compiledSchemas.set(key, validate);
  }
  if ("invalid" in validate) return [validate.invalid];
  if (validate(info)) return null;
  return (
    validate.errors?.map((error) => `${error.instancePath || "(root)"}: ${error.message}`) ?? [
      "Unknown validation error",
    ]
  );
}

const firstError = (errors: string[] | undefined) => (errors?.[0] ?? "invalid").slice(0, 200);

/** NUL and unpaired surrogates: PostgreSQL's jsonb refuses them. */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const UNSTORABLE = /\u0000|\p{Cs}/u;

/** Depth and storable text, walked without recursion so no nesting can exhaust the stack. */
function shapeProblem(value: unknown): string | null {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  while (pending.length > 0) {
    const { value: node, depth } = pending.pop()!;
    if (typeof node === "string") {
      if (UNSTORABLE.test(node)) return "has a NUL character or an unpaired surrogate, which cannot be stored";
      continue;
    }
    if (node === null || typeof node !== "object") continue;
    if (depth > BAZAAR_MAX_DEPTH) return `nests deeper than ${BAZAAR_MAX_DEPTH} levels`;
    for (const [key, child] of Object.entries(node)) {
      if (UNSTORABLE.test(key)) return "has a NUL character or an unpaired surrogate, which cannot be stored";
      pending.push({ value: child, depth: depth + 1 });
    }
  }
  return null;
}

/** In the schema: a `$ref`/`$id` that is not a same-document `#` fragment, or a risky `pattern`. */
function referenceOrRegexProblem(schema: JsonObject): string | null {
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== "object") continue;
    for (const [key, child] of Object.entries(node)) {
      if ((key === "$ref" || key === "$id") && !(typeof child === "string" && child.startsWith("#"))) {
        return `its schema has an external ${key} (${JSON.stringify(child).slice(0, 80)}); only same-document "#..." references are allowed, and none is ever fetched`;
      }
      if (key === "pattern" && typeof child === "string" && backtracksExponentially(child)) {
        return `its schema has a pattern that can backtrack exponentially (${JSON.stringify(child).slice(0, 80)})`;
      }
      if (key === "patternProperties" && isJsonObject(child)) {
        const risky = Object.keys(child).find(backtracksExponentially);
        if (risky !== undefined)
          return `its schema has a patternProperties key that can backtrack exponentially (${JSON.stringify(risky).slice(0, 80)})`;
      }
      pending.push(child);
    }
  }
  return null;
}

/**
 * A conservative star-height test: a repeated group (`*`, `+` or `{`) that itself holds a repetition
 * or an alternation, as in `(a+)+` or `(a|a)*`, or any backreference. Honest schemas rarely need
 * either; a regular expression that has them can take seconds on a short string.
 */
export function backtracksExponentially(source: string): boolean {
  const groups: boolean[] = [];
  let closedGroupRisky = false;
  let afterGroup = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (char === "\\") {
      if (/[1-9k]/.test(source[i + 1] ?? "")) return true;
      i++;
      afterGroup = false;
    } else if (char === "[") {
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
      afterGroup = false;
    } else if (char === "(") {
      groups.push(false);
      afterGroup = false;
    } else if (char === ")") {
      closedGroupRisky = groups.pop() ?? false;
      if (closedGroupRisky && groups.length > 0) groups[groups.length - 1] = true;
      afterGroup = true;
    } else if (char === "*" || char === "+" || char === "{") {
      if (afterGroup && closedGroupRisky) return true;
      if (groups.length > 0) groups[groups.length - 1] = true;
      afterGroup = false;
    } else if (char === "|") {
      if (groups.length > 0) groups[groups.length - 1] = true;
      afterGroup = false;
    } else if (char !== "?") {
      afterGroup = false;
    }
  }
  return false;
}
