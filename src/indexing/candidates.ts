// What another catalog or domain declares, checked before anything is stored: an item of a
// Bazaar-shaped catalog or a sync page (`resource` a URL string), or of a well-known route manifest
// (`resource` an object with `url`). Only what this catalog can show honestly is taken: an HTTP
// resource paid `exact` on our network in our token, at a public https address. Everything else is
// counted under a refusal code (README, Discovery standards and mirrors).
import { getAddress, isAddress } from "viem";
import { NETWORK } from "../constants.js";
import { judgeAddress } from "../probe/address-policy.js";
import type { IndexedResource } from "./index-store.js";
import { isIP } from "node:net";

export const REFUSALS = [
  "not_an_object",
  "no_resource",
  "bad_url",
  "not_https",
  "private_address",
  "other_type",
  "no_exact_requirement",
  "other_network_or_asset",
  "bad_amount",
  "bad_pay_to",
  "bad_method",
] as const;
export type Refusal = (typeof REFUSALS)[number];

const MAX_URL = 2048;
export const MAX_DESCRIPTION = 1000;
const MAX_NAME = 100;
// eslint-disable-next-line no-control-regex -- control characters are what it removes
const CONTROL = /[\u0000-\u001f\u007f]+/g;

export interface CandidateRules {
  /** The token every accepted requirement must name (our listings' asset). */
  asset: string;
  /** Tests and local development: loopback resources over http. */
  allowLoopback: boolean;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
/** A declared text as stored: control characters replaced, trimmed, at most `max` characters; undefined when empty. */
export const declaredText = (value: unknown, max: number): string | undefined =>
  typeof value === "string" && value.trim() ? value.replace(CONTROL, " ").trim().slice(0, max) : undefined;

/** A resource URL this catalog may show: absolute, https (loopback http in tests), no credentials, no private literal address. */
export function resourceProblem(raw: string, rules: CandidateRules): Refusal | null {
  if (raw.length > MAX_URL) return "bad_url";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "bad_url";
  }
  if (url.username || url.password) return "bad_url";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const literal = isIP(host) ? judgeAddress(host, rules.allowLoopback) : null;
  if (literal && !literal.allowed) return "private_address";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && rules.allowLoopback && (literal?.range === "loopback" || host === "localhost"))
    return null;
  return "not_https";
}

function methodOf(item: Json): "GET" | "POST" | null {
  const bazaar = isObject(item.extensions) && isObject(item.extensions.bazaar) ? item.extensions.bazaar : undefined;
  const info = bazaar && isObject(bazaar.info) && isObject(bazaar.info.input) ? bazaar.info.input : undefined;
  const input = isObject(item.input) ? item.input : undefined;
  const declared = item.method ?? input?.method ?? info?.method ?? "GET";
  const method = typeof declared === "string" ? declared.toUpperCase() : "";
  return method === "GET" || method === "POST" ? method : null;
}

function tagsOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const tags = value
    .flatMap((tag) => (typeof tag === "string" && /^[\w .:-]{1,40}$/u.test(tag) ? [tag.trim()] : []))
    .slice(0, 5);
  return tags.length ? tags : undefined;
}

/** One declared item as an indexed resource, or why not. */
export function candidateOf(raw: unknown, document: string, rules: CandidateRules): IndexedResource | Refusal {
  if (!isObject(raw)) return "not_an_object";
  const described = isObject(raw.resource) ? raw.resource : raw;
  const resource =
    typeof raw.resource === "string" ? raw.resource : isObject(raw.resource) ? raw.resource.url : undefined;
  if (typeof resource !== "string" || !resource) return "no_resource";
  const problem = resourceProblem(resource, rules);
  if (problem) return problem;
  if (raw.type !== undefined && raw.type !== "http") return "other_type";
  const method = methodOf(raw);
  if (!method) return "bad_method";
  const accepts = Array.isArray(raw.accepts) ? raw.accepts.filter(isObject) : [];
  const exact = accepts.filter((requirement) => requirement.scheme === "exact");
  if (exact.length === 0) return "no_exact_requirement";
  const ours = exact.find(
    (requirement) =>
      requirement.network === NETWORK &&
      typeof requirement.asset === "string" &&
      requirement.asset.toLowerCase() === rules.asset.toLowerCase(),
  );
  if (!ours) return "other_network_or_asset";
  const amount = ours.amount ?? ours.maxAmountRequired;
  if (typeof amount !== "string" || !/^[0-9]{1,30}$/.test(amount) || BigInt(amount) === 0n) return "bad_amount";
  if (typeof ours.payTo !== "string" || !isAddress(ours.payTo, { strict: false })) return "bad_pay_to";
  const description =
    declaredText(described.description, MAX_DESCRIPTION) ??
    declaredText(raw.description, MAX_DESCRIPTION) ??
    declaredText(ours.description, MAX_DESCRIPTION) ??
    "";
  return {
    resource,
    method,
    description,
    priceAtomic: BigInt(amount).toString(),
    payTo: getAddress(ours.payTo.toLowerCase()),
    serviceName: declaredText(described.serviceName, MAX_NAME),
    tags: tagsOf(described.tags),
    mimeType: declaredText(described.mimeType ?? ours.mimeType, MAX_NAME),
    document,
  };
}

/** Every item of a list as resources, and the refusals counted by code. */
export function candidatesOf(
  items: unknown[],
  document: string,
  rules: CandidateRules,
  /** The row id an item keeps (a mirrored marketplace's listing id), when it has one. */
  idOf: (item: unknown) => string | undefined = () => undefined,
): { resources: IndexedResource[]; refused: Partial<Record<Refusal, number>> } {
  const resources: IndexedResource[] = [];
  const refused: Partial<Record<Refusal, number>> = {};
  for (const item of items) {
    const candidate = candidateOf(item, document, rules);
    if (typeof candidate === "string") refused[candidate] = (refused[candidate] ?? 0) + 1;
    else resources.push({ ...candidate, id: idOf(item) });
  }
  return { resources, refused };
}
