// The words a seller declares beside its description, for the lexical side: the property names and
// descriptions of its input schema and of the Bazaar extension's schema, and the keys of its
// examples, read to a bounded depth and length (a 16 KiB schema yields at most MAX_WORDS words).

const MAX_DEPTH = 4;
const MAX_WORDS = 80;

/** "lat_lon", "postalCode" -> "lat lon", "postal Code". */
const spaced = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_\-.]+/g, " ");

function collect(value: unknown, out: string[], depth: number): void {
  if (out.length >= MAX_WORDS || depth > MAX_DEPTH || value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (const item of value.slice(0, 8)) collect(item, out, depth + 1);
    return;
  }
  for (const [key, inner] of Object.entries(value as Record<string, unknown>).slice(0, 40)) {
    if (out.length >= MAX_WORDS) return;
    if (key === "description" || key === "title") {
      if (typeof inner === "string") out.push(inner.slice(0, 200));
      continue;
    }
    // Schema keywords are no words of the seller's; property names and example keys are.
    if (!SCHEMA_WORDS.has(key)) out.push(spaced(key));
    collect(inner, out, depth + 1);
  }
}

const SCHEMA_WORDS = new Set(
  (
    "type properties required items additionalProperties enum const format pattern minimum maximum minLength maxLength " +
    "oneOf anyOf allOf not $schema $id $ref definitions $defs default examples example info input output schema body " +
    "queryParams headers method bodyType object string number integer boolean array null"
  ).split(" "),
);

/** The declared words of a listing's input schema and Bazaar extension (JSON values, or JSON text as SQLite keeps them). */
export function declaredText(...sources: unknown[]): string {
  const out: string[] = [];
  for (const source of sources) {
    let value = source;
    if (typeof value === "string") {
      try {
        value = JSON.parse(value) as unknown;
      } catch {
        continue;
      }
    }
    collect(value, out, 0);
  }
  return out.join(" ").slice(0, 2000);
}
