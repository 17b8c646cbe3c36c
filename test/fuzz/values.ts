// Malformed values for the fuzz suite: fixed pools (types, sizes, control characters, encodings,
// unicode, injection-looking text) and a seeded generator for a few random ones per slot.

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Named<T> {
  name: string;
  value: T;
}

const named = <T>(name: string, value: T): Named<T> => ({ name, value });
const pct = (text: string) => encodeURIComponent(text);
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const b64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");
const KB10 = 10 * 1024;

/** Injection-looking and search-syntax text (SQL, LIKE, FTS5, tsquery), as text. */
export const INJECTION_TEXT: string[] = [
  "' OR 1=1 --",
  "%' ESCAPE '\\",
  "\\",
  "_%",
  '"',
  'a"b',
  "*",
  "a*",
  "NEAR(a b)",
  "a AND",
  "OR",
  "NOT a",
  "-a",
  "^a",
  "description:x",
  "{a b}",
  "(",
  ")",
  "a & b | !c",
  "a <-> b",
  "a:*",
  "'",
  '\'; DROP TABLE "Listing"; --',
  "$1",
  "?",
  "${7*7}",
  "<script>alert(1)</script>",
  "../../etc/passwd",
];

/**
 * Query-string values as they go on the wire (already percent-encoded where meant to be, and
 * deliberately invalid where named so). Every parameter gets the first group; parameters that take
 * free text get the text-shaped values too (dates, addresses, base64 cursors, injection text).
 */
export function queryValues(kind: "text" | "other" = "text"): Named<string>[] {
  const core = [
    named("empty", ""),
    named("text for a number", "abc"),
    named("1e309", "1e309"),
    named("-1", "-1"),
    named("-0", "-0"),
    named("1.5", "1.5"),
    named("9999999999999999999999", "9999999999999999999999"),
    named("2147483648", "2147483648"),
    named("NaN", "NaN"),
    named("Infinity", "Infinity"),
    named("0x10", "0x10"),
    named("padded number", "%201%20"),
    named("plus as space", "a+b"),
    named("TRUE", "TRUE"),
    named("null", "null"),
    named("JSON array", pct("[1,2]")),
    named("10 kB", "a".repeat(KB10)),
    named("NUL", "%00"),
    named("text with NUL", "abc%00def"),
    named("U+0001", "%01"),
    named("U+001F", "%1F"),
    named("DEL", "%7F"),
    named("CR LF", "abc%0D%0Adef"),
    named("lone %", "%"),
    named("%zz", "%zz"),
    named("invalid UTF-8 %C3%28", "%C3%28"),
    named("lone surrogate %ED%A0%80", "%ED%A0%80"),
    named("emoji", "%F0%9F%98%80"),
    named("RTL override", "a%E2%80%AEb"),
    named("U+FFFE", "%EF%BF%BE"),
    named("injection ' OR 1=1 --", pct("' OR 1=1 --")),
  ];
  if (kind === "other") return core;
  return [
    ...core,
    named("0", "0"),
    named("+1", "%2B1"),
    named("JSON object", pct('{"a":1}')),
    named("4 kB of 3-byte characters", "%E2%82%AC".repeat(1365)),
    named("tab", "%09"),
    named("trailing %", "abc%"),
    named("overlong %C0%AF", "%C0%AF"),
    named("bytes %FF%FE", "%FF%FE"),
    named("BOM", "%EF%BB%BFa"),
    named("zero-width space", "%E2%80%8B"),
    named("combining marks", "a%CC%81".repeat(60)),
    named("base64url of non-JSON", b64url("not json")),
    named("base64url of a JSON array", b64url("[]")),
    named("base64url of JSON of the wrong shape", b64url('{"o":1e300,"f":null}')),
    named("base64url of a prototype key", b64url('{"__proto__":{"o":1},"o":-1,"f":"x"}')),
    named("date-time leap second", "2030-01-01T23:59:60Z"),
    named("date-time Feb 30", "2030-02-30T00:00:00Z"),
    named("date-time year 0", "0000-01-01T00:00:00Z"),
    named("date-time far future", "9999-12-31T23:59:59.999999999Z"),
    named("date-time offset +24", "2030-01-01T00:00:00%2B24:00"),
    named("date-time expanded year", "%2B275760-09-13T00:00:00.000Z"),
    named("address, bad checksum", "0xAbCdEf0123456789abcdef0123456789ABCDEF01"),
    named("address, 41 digits", `0x${"a".repeat(41)}`),
    named("address, upper-case X", `0X${"a".repeat(40)}`),
    ...INJECTION_TEXT.slice(1).map((text) => named(`injection ${JSON.stringify(text)}`, pct(text))),
  ];
}

/** Values that only make sense against a schema: boundaries, enum variants, length limits. */
export function schemaQueryValues(schema: JsonSchema): Named<string>[] {
  const values: Named<string>[] = [];
  if (typeof schema.minimum === "number")
    values.push(named("minimum - 1", String(schema.minimum - 1)), named("minimum", String(schema.minimum)));
  if (typeof schema.maximum === "number")
    values.push(named("maximum + 1", String(schema.maximum + 1)), named("maximum", String(schema.maximum)));
  if (typeof schema.maxLength === "number") {
    values.push(
      named("maxLength + 1", "a".repeat(schema.maxLength + 1)),
      named("maxLength of 4-byte characters", "%F0%9F%98%80".repeat(schema.maxLength)),
    );
  }
  if (typeof schema.minLength === "number" && schema.minLength > 0)
    values.push(named("minLength - 1", "a".repeat(schema.minLength - 1)));
  for (const option of (schema.enum ?? []) as unknown[]) {
    const text = String(option);
    values.push(
      named(`enum ${text} upper-cased`, pct(text.toUpperCase())),
      named(`enum ${text} with NUL`, `${pct(text)}%00`),
      named(`enum ${text} padded`, `%20${pct(text)}`),
    );
  }
  return values;
}

/** `count` random query values from the seeded generator: random bytes, percent-encoded or raw-safe. */
export function randomQueryValues(random: () => number, count: number): Named<string>[] {
  const values: Named<string>[] = [];
  for (let i = 0; i < count; i++) {
    const length = 1 + Math.floor(random() * 40);
    let text = "";
    for (let j = 0; j < length; j++) {
      const byte = Math.floor(random() * 256);
      text +=
        random() < 0.3 && /[A-Za-z0-9]/.test(String.fromCharCode(byte))
          ? String.fromCharCode(byte)
          : `%${byte.toString(16).padStart(2, "0").toUpperCase()}`;
    }
    values.push(named(`random bytes #${i}`, text));
  }
  return values;
}

/** Header values as raw bytes (latin1 strings are sent byte for byte). */
export function headerValues(): Named<string | Buffer>[] {
  return [
    named("garbage", "!!garbage!!"),
    named("empty", ""),
    named("10 kB", "a".repeat(KB10)),
    named("raw latin1 bytes", Buffer.from([0x63, 0xe9, 0xff, 0x80])),
    named("raw UTF-8 emoji", Buffer.from("\u{1f600}", "utf8")),
    named("comma list", ",".repeat(2000)),
    named("quoted", '"x", W/"y", *'),
    named("not base64", "***not base64***"),
    named("base64 of non-JSON", b64("not json at all")),
    named("base64 of a JSON array", b64("[]")),
    named("base64 of a JSON number", b64("1e309")),
    named("base64 of JSON null", b64("null")),
    named("base64 of a JSON string", b64('"x"')),
    named("base64 of an empty object", b64("{}")),
    named("base64 of JSON of the wrong shape", b64('{"x402Version":2,"accepted":[],"payload":"x"}')),
    named("base64 of x402 v1", b64('{"x402Version":1,"scheme":"exact","network":"base","payload":{}}')),
    named("base64 of 3,000-deep JSON", b64(deepJson(3000))),
    named("base64url of JSON", b64url('{"x402Version":2}')),
    named("base64 with whitespace", `${b64("{}").slice(0, 2)} ${b64("{}").slice(2)}`),
    named("base64 of a prototype key", b64('{"__proto__":{"x402Version":2},"x402Version":"2"}')),
  ];
}

/** A few header values for headers an operation does not read. */
export function shortHeaderValues(): Named<string | Buffer>[] {
  return headerValues().filter(({ name }) =>
    ["garbage", "empty", "10 kB", "raw latin1 bytes", "raw UTF-8 emoji", "comma list"].includes(name),
  );
}

/** JSON text nested `depth` levels: arrays and objects alternating. */
export function deepJson(depth: number): string {
  let open = "";
  let close = "";
  for (let i = 0; i < depth; i++) {
    if (i % 2 === 0) {
      open += '{"a":';
      close = `}${close}`;
    } else {
      open += "[";
      close = `]${close}`;
    }
  }
  return `${open}1${close}`;
}

/** JSON values for a body field or tool argument, as JSON text (some are not producible by JSON.stringify). */
export function jsonValues(): Named<string>[] {
  const text = (value: unknown) => JSON.stringify(value);
  return [
    named("null", "null"),
    named("true", "true"),
    named("0", "0"),
    named("-1", "-1"),
    named("1.5", "1.5"),
    named("1e308", "1e308"),
    named("1e309 (Infinity)", "1e309"),
    named("-1e309", "-1e309"),
    named("2^53 + 1", "9007199254740993"),
    named("-0", "-0"),
    named("empty string", text("")),
    named("spaces", text("   ")),
    named("10 kB string", text("a".repeat(KB10))),
    named("NUL", text("\u0000")),
    named("text with NUL", text("abc\u0000def ghi jkl")),
    named("U+0001", text("\u0001")),
    named("U+001F", text("\u001f")),
    named("DEL", text("\u007f")),
    named("CR LF", text("abc\r\ndef ghi")),
    named("lone high surrogate", '"\\ud800 trailing"'),
    named("lone low surrogate", '"\\udc00"'),
    named("U+FFFE", text("\ufffe\uffff")),
    named("RTL override", text("abc\u202edef ghi")),
    named("emoji", text("\u{1f600}".repeat(10))),
    named("combining marks", text("a\u0301".repeat(300))),
    named("number-like string", text("1")),
    named("hex string", text("0x10")),
    named("NaN string", text("NaN")),
    named("empty array", "[]"),
    named("array", '[1,"a",null]'),
    named("empty object", "{}"),
    named("object", '{"a":1}'),
    named("prototype key", '{"__proto__":{"polluted":true}}'),
    named("constructor key", '{"constructor":{"prototype":{"polluted":true}}}'),
    named("50-deep", deepJson(50)),
    named("3,000-deep", deepJson(3000)),
    named("javascript: URL", text("javascript:alert(1)")),
    named("https URL with markup", text("https://example.com/<script>\"'&")),
    named("https URL with spaces", text("https://exa mple.com/")),
    named("https URL to loopback", text("https://127.0.0.1:9/fuzz")),
    named("https URL with credentials", text("https://user:pass@127.0.0.1:9/")),
    named("address, bad checksum", text("0xAbCdEf0123456789abcdef0123456789ABCDEF01")),
    named("address, zero", text(`0x${"0".repeat(40)}`)),
    named("decimal with 7 places", text("0.1234567")),
    named("decimal 0", text("0")),
    named("decimal huge", text("999999999999.999999")),
    ...INJECTION_TEXT.map((value) => named(`injection ${JSON.stringify(value)}`, text(value))),
  ];
}

/**
 * An opaque token the server itself handed out (a continuation cursor), tampered with: cut, padded,
 * and, when it is base64url JSON, each leaf replaced by a wrong type or an extreme number.
 */
export function tamperedTokens(token: string): Named<string>[] {
  const values: Named<string>[] = [
    named("as issued", pct(token)),
    named("last character cut", pct(token.slice(0, -1))),
    named("padded with =", pct(`${token}==`)),
    named("with a trailing NUL", `${pct(token)}%00`),
    named("doubled", pct(token + token)),
  ];
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    return values;
  }
  const leaves: Array<[string, unknown]> = [
    ["max safe integer", Number.MAX_SAFE_INTEGER],
    ["2^53 + 2", 2 ** 53 + 2],
    ["2^31", 2 ** 31],
    ["-1", -1],
    ["1.5", 1.5],
    ["1e308", 1e308],
    ["a string", "1"],
    ["null", null],
    ["an object", { "": 1 }],
  ];
  if (decoded && typeof decoded === "object" && !Array.isArray(decoded)) {
    for (const key of Object.keys(decoded)) {
      for (const [label, leaf] of leaves) {
        values.push(
          named(`${key} replaced by ${label}`, b64url(JSON.stringify({ ...(decoded as object), [key]: leaf }))),
        );
      }
    }
  }
  return values;
}

/** JSON values against a field's own schema: boundaries, length limits counted in code points, enum variants. */
export function schemaJsonValues(schema: JsonSchema): Named<string>[] {
  const values: Named<string>[] = [];
  const text = (value: unknown) => JSON.stringify(value);
  if (typeof schema.minimum === "number")
    values.push(named("minimum - 1", text(schema.minimum - 1)), named("minimum - 0.5", text(schema.minimum - 0.5)));
  if (typeof schema.maximum === "number")
    values.push(
      named("maximum + 1", text(schema.maximum + 1)),
      named("maximum as a string", text(String(schema.maximum))),
    );
  if (typeof schema.maxLength === "number") {
    values.push(
      named("maxLength + 1", text("a".repeat(schema.maxLength + 1))),
      named("maxLength of 4-byte characters", text("\u{1f600}".repeat(schema.maxLength))),
      named("maxLength of 4-byte characters + 1", text("\u{1f600}".repeat(schema.maxLength + 1))),
    );
  }
  if (typeof schema.minLength === "number" && schema.minLength > 0)
    values.push(named("minLength - 1", text("a".repeat(schema.minLength - 1))));
  for (const option of (schema.enum ?? []) as unknown[]) {
    if (typeof option !== "string") continue;
    values.push(
      named(`enum ${option} lower-cased`, text(option.toLowerCase())),
      named(`enum ${option} with NUL`, text(`${option}\u0000`)),
      named(`enum ${option} padded`, text(` ${option}`)),
    );
  }
  return values;
}

/** `count` random JSON values of random types from the seeded generator. */
export function randomJsonValues(random: () => number, count: number): Named<string>[] {
  const values: Named<string>[] = [];
  const randomString = () => {
    let out = "";
    const length = Math.floor(random() * 30);
    for (let i = 0; i < length; i++) {
      // Mostly the BMP, surrogates included, so lone halves appear now and then.
      out += String.fromCharCode(random() < 0.5 ? Math.floor(random() * 128) : Math.floor(random() * 0x10000));
    }
    return out;
  };
  const randomValue = (depth: number): unknown => {
    const pick = Math.floor(random() * (depth > 3 ? 5 : 7));
    switch (pick) {
      case 0:
        return null;
      case 1:
        return random() < 0.5;
      case 2:
        return (random() - 0.5) * 10 ** Math.floor(random() * 30);
      case 3:
      case 4:
        return randomString();
      case 5:
        return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(depth + 1));
      default:
        return Object.fromEntries(
          Array.from({ length: Math.floor(random() * 4) }, () => [randomString(), randomValue(depth + 1)]),
        );
    }
  };
  for (let i = 0; i < count; i++) values.push(named(`random JSON #${i}`, JSON.stringify(randomValue(0)) ?? "null"));
  return values;
}

export interface JsonSchema {
  type?: string | string[];
  format?: string;
  pattern?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  default?: unknown;
  $ref?: string;
  [key: string]: unknown;
}
