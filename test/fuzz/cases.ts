// The malformed requests of one operation, derived from what the contract declares for it: its
// query, header and path parameters, its request body schema, and (for the paid routes) a
// well-formed payment to break one field at a time. Nothing here names an operation.
import type { RawRequest } from "./raw-http.js";
import { flatten, sampleOf, type OpenApiDocument, type Operation } from "./operations.js";
import {
  deepJson,
  headerValues,
  jsonValues,
  queryValues,
  randomJsonValues,
  randomQueryValues,
  schemaJsonValues,
  schemaQueryValues,
  shortHeaderValues,
  type JsonSchema,
  type Named,
} from "./values.js";

export interface FuzzCase {
  /** Null for the HTTP framing cases, which no route ever sees. */
  operation: Operation | null;
  /** What is malformed. */
  what: string;
  request: RawRequest;
  /** The request carries a well-formed payment: the offline facilitator's 502/503 is a fine answer. */
  upstreamAllowed?: boolean;
  /** The request's path is not the operation's own (a mangled path may reach another route or none). */
  offRoute?: boolean;
}

export interface CaseContext {
  document: OpenApiDocument;
  random: () => number;
  maxBodyBytes: number;
  /** A well-formed payment payload (decoded PAYMENT-SIGNATURE) per paid operation, by `METHOD path`. */
  payments: Map<string, Record<string, unknown>>;
  /** The tools of a JSON-RPC (MCP) operation, from its live tools/list. */
  tools: Array<{ name: string; inputSchema: JsonSchema }>;
  /** Extra values for a query parameter, by `METHOD path parameter`: tokens the server handed out, tampered with. */
  harvested: Map<string, Named<string>[]>;
}

const JSON_TYPE = "application/json";
const BOTH_ACCEPTS = "application/json, text/event-stream";
const enc = (value: unknown) => encodeURIComponent(String(value));
const base64Json = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64");
export const keyOf = (operation: Operation) => `${operation.method} ${operation.path}`;

const queryParameters = (operation: Operation) => operation.parameters.filter((parameter) => parameter.in === "query");
const headerParameters = (operation: Operation) =>
  operation.parameters.filter((parameter) => parameter.in === "header");
export const isPaid = (operation: Operation) =>
  headerParameters(operation).some((parameter) => parameter.name.toLowerCase() === "payment-signature");

/** The operation's path with every template filled with a sample, or with `values` where given (raw). */
function pathOf(ctx: CaseContext, operation: Operation, values: Record<string, string> = {}): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    if (name in values) return values[name]!;
    const parameter = operation.parameters.find((candidate) => candidate.in === "path" && candidate.name === name);
    return enc(sampleOf(ctx.document, parameter?.schema));
  });
}

/** `name=sample` for each required query parameter except `except`. */
function requiredQuery(ctx: CaseContext, operation: Operation, except?: string): string[] {
  return queryParameters(operation)
    .filter((parameter) => parameter.required && parameter.name !== except)
    .map((parameter) => `${enc(parameter.name)}=${enc(sampleOf(ctx.document, parameter.schema))}`);
}

function targetOf(path: string, pieces: string[]): string {
  return pieces.length === 0 ? path : `${path}?${pieces.join("&")}`;
}

/** The well-formed body of an operation: a ping for JSON-RPC, else a sample of its schema. */
function baseBodyOf(ctx: CaseContext, operation: Operation): unknown {
  if (operation.jsonRpc) return { jsonrpc: "2.0", id: 1, method: "ping" };
  return operation.bodySchema ? sampleOf(ctx.document, operation.bodySchema) : undefined;
}

function baseHeadersOf(ctx: CaseContext, operation: Operation): Array<[string, string | Buffer]> {
  const headers: Array<[string, string | Buffer]> = [];
  if (operation.bodySchema) headers.push(["Content-Type", JSON_TYPE], ["Accept", BOTH_ACCEPTS]);
  for (const parameter of headerParameters(operation)) {
    if (parameter.required) headers.push([parameter.name, String(sampleOf(ctx.document, parameter.schema))]);
  }
  return headers;
}

type Change = Partial<RawRequest> & {
  /** Query pieces (`name=value`, raw) instead of the required parameters' samples. */
  query?: string[];
  /** Base headers to leave out (headers given in `headers` replace their namesakes anyway). */
  replaceHeaders?: string[];
};

/** A request of the operation: the required parameters, the base headers and body, then `change`. */
function request(ctx: CaseContext, operation: Operation, change: Change): RawRequest {
  const { target, query, headers = [], replaceHeaders = [], body, method, ...rest } = change;
  const replaced = new Set([...replaceHeaders, ...headers.map(([name]) => name)].map((name) => name.toLowerCase()));
  const baseBody = baseBodyOf(ctx, operation);
  return {
    method: method ?? operation.method,
    target: target ?? targetOf(pathOf(ctx, operation), query ?? requiredQuery(ctx, operation)),
    headers: [...baseHeadersOf(ctx, operation).filter(([name]) => !replaced.has(name.toLowerCase())), ...headers],
    ...(body !== undefined
      ? { body }
      : baseBody !== undefined
        ? { body: Buffer.from(JSON.stringify(baseBody), "utf8") }
        : {}),
    ...rest,
  };
}

const takesText = (schema: JsonSchema) => (schema.type === "string" || schema.type === undefined) && !schema.enum;

function queryCases(ctx: CaseContext, operation: Operation): FuzzCase[] {
  const cases: FuzzCase[] = [];
  for (const parameter of queryParameters(operation)) {
    const name = enc(parameter.name);
    const others = requiredQuery(ctx, operation, parameter.name);
    const values: Named<string>[] = [
      ...queryValues(takesText(parameter.schema) ? "text" : "other"),
      ...schemaQueryValues(parameter.schema),
      ...randomQueryValues(ctx.random, 3),
      ...(ctx.harvested.get(`${keyOf(operation)} ${parameter.name}`) ?? []).map((value) => ({
        ...value,
        name: `issued value ${value.name}`,
      })),
      { name: "repeated key", value: `1&${name}=2` },
      { name: "repeated key, second malformed", value: `${enc(sampleOf(ctx.document, parameter.schema))}&${name}=%00` },
    ];
    for (const { name: label, value } of values) {
      cases.push({
        operation,
        what: `query ${parameter.name}: ${label}`,
        request: request(ctx, operation, { query: [...others, `${name}=${value}`] }),
      });
    }
    for (const [label, piece] of [
      ["bracket array", `${name}[]=1`],
      ["bracket object", `${name}[a]=1`],
      ["index past the array limit", `${name}[25]=1`],
      ["nested brackets", `${name}[a][b][c][d][e][f][g]=1`],
      ["no value", name],
      ["empty value", `${name}=`],
      ["upper-cased name", `${enc(parameter.name.toUpperCase())}=1`],
    ] as const) {
      cases.push({
        operation,
        what: `query ${parameter.name}: ${label}`,
        request: request(ctx, operation, { query: [...others, piece] }),
      });
    }
  }
  return cases;
}

const UNKNOWN_QUERIES: Array<[string, string]> = [
  ["unknown parameter", "zzz=1"],
  ["__proto__", "__proto__=1"],
  ["__proto__ object", "__proto__[polluted]=1"],
  ["constructor prototype", "constructor[prototype][polluted]=1"],
  ["toString", "toString=1"],
  ["hasOwnProperty", "hasOwnProperty=1"],
  ["NUL in a name", "a%00b=1"],
  ["empty name", "=1"],
  ["only separators", "&&&"],
  ["percent name", "%=%"],
  ["invalid UTF-8 name", "%C3%28=1"],
  ["semicolon separator", "a=1;b=2"],
  ["question mark inside", "?a=1"],
  ["1,000 parameters", Array.from({ length: 1000 }, (_, i) => `p${i}=1`).join("&")],
  ["2,000 parameters", Array.from({ length: 2000 }, (_, i) => `q${i}=1`).join("&")],
  ["10 kB name", `${"k".repeat(10 * 1024)}=1`],
];

function unknownQueryCases(ctx: CaseContext, operation: Operation): FuzzCase[] {
  const others = requiredQuery(ctx, operation);
  return UNKNOWN_QUERIES.map(([label, piece]) => ({
    operation,
    what: `query: ${label}`,
    request: request(ctx, operation, { query: [...others, piece] }),
  }));
}

/** Mangled paths: whatever answers them, it must answer JSON. */
function pathCases(ctx: CaseContext, operation: Operation): FuzzCase[] {
  const path = pathOf(ctx, operation);
  const mangled: Array<[string, string]> = [
    ["trailing slash", `${path}/`],
    ["double leading slash", `/${path}`],
    ["NUL appended", `${path}%00`],
    ["encoded slash appended", `${path}%2F`],
    ["dot segment", `${path}/.`],
    ["dot-dot segment", `${path}/..%2F..%2Fetc%2Fpasswd`],
    ["upper-cased", path.toUpperCase()],
    ["matrix parameter", `${path};x=1`],
    ["lone %", `${path}%`],
    ["%zz", `${path}%zz`],
    ["invalid UTF-8", `${path}%C3%28`],
    ["lone surrogate", `${path}%ED%A0%80`],
    ["10 kB segment", `${path}/${"a".repeat(10 * 1024)}`],
    ["encoded dot", path.replace(/\.(\w+)$/, "%2E$1")],
  ];
  // Template parameters get every malformed query value too.
  for (const parameter of operation.parameters.filter((candidate) => candidate.in === "path")) {
    for (const { name, value } of [...queryValues(), ...schemaQueryValues(parameter.schema)]) {
      mangled.push([`path ${parameter.name}: ${name}`, pathOf(ctx, operation, { [parameter.name]: value || "%20" })]);
    }
  }
  return mangled
    .filter(([, target]) => target !== operation.path)
    .map(([label, target]) => ({
      operation,
      what: `path: ${label}`,
      offRoute: !label.startsWith("path "),
      request: request(ctx, operation, { target }),
    }));
}

/** Other methods on the operation's path, once per path. */
export function methodCases(ctx: CaseContext, operation: Operation): FuzzCase[] {
  const path = pathOf(ctx, operation);
  const cases: Array<[string, RawRequest]> = [
    ["HEAD with a malformed query", { method: "HEAD", target: `${path}?limit=%00&zzz=%zz` }],
    ["OPTIONS", { method: "OPTIONS", target: path }],
    [
      "CORS preflight of a strange method",
      {
        method: "OPTIONS",
        target: path,
        headers: [
          ["Origin", "http://evil.example"],
          ["Access-Control-Request-Method", "PROPFIND"],
          ["Access-Control-Request-Headers", "x-\u00e9, ,,"],
        ],
      },
    ],
    [
      "PUT with a JSON body",
      { method: "PUT", target: path, headers: [["Content-Type", JSON_TYPE]], body: Buffer.from("{}") },
    ],
    ["DELETE", { method: "DELETE", target: path }],
    [
      "PATCH with a non-JSON body",
      { method: "PATCH", target: path, headers: [["Content-Type", "text/plain"]], body: Buffer.from("x") },
    ],
    ["PROPFIND", { method: "PROPFIND", target: path }],
    ["TRACE", { method: "TRACE", target: path }],
    [
      "GET with a malformed JSON body",
      { method: "GET", target: path, headers: [["Content-Type", JSON_TYPE]], body: Buffer.from("{") },
    ],
  ];
  return cases.map(([label, raw]) => ({ operation, what: `method: ${label}`, offRoute: true, request: raw }));
}

const HOST_VALUES: Named<string | Buffer>[] = [
  { name: "other host", value: "evil.example" },
  { name: "port out of range", value: "localhost:99999" },
  { name: "unclosed IPv6", value: "[::1" },
  { name: "two hosts", value: "127.0.0.1, evil.example" },
  { name: "trailing dot", value: "localhost." },
  { name: "upper case", value: "LOCALHOST" },
  { name: "userinfo", value: "user@localhost" },
  { name: "path inside", value: "localhost/../x" },
];
const ORIGIN_VALUES: Named<string | Buffer>[] = [
  { name: "null", value: "null" },
  { name: "other site", value: "http://evil.example" },
  { name: "lookalike", value: "http://localhost.evil.example" },
  { name: "unclosed IPv6", value: "http://[::1" },
  { name: "file", value: "file://" },
  { name: "port out of range", value: "http://localhost:99999" },
  { name: "no scheme", value: "localhost" },
];
const ACCEPT_VALUES: Named<string | Buffer>[] = [
  { name: "event stream only", value: "text/event-stream" },
  { name: "JSON refused", value: "application/json;q=0" },
  { name: "bad q", value: "*/*;q=abc" },
  { name: "wildcard type", value: "application/*" },
];

/** Headers every route may meet; the full pool for headers the operation reads, a short one otherwise. */
function headerCases(ctx: CaseContext, operation: Operation): FuzzCase[] {
  const declared = headerParameters(operation).map((parameter) => parameter.name);
  const readsEverything = operation.rawBody;
  const plan: Array<[string, Named<string | Buffer>[]]> = [];
  const pool = (name: string, extra: Named<string | Buffer>[] = []) => {
    const full = readsEverything || declared.some((declaredName) => declaredName.toLowerCase() === name.toLowerCase());
    plan.push([name, [...(full ? headerValues() : shortHeaderValues()), ...extra]]);
  };
  for (const name of declared) pool(name);
  if (!declared.some((name) => name.toLowerCase() === "if-none-match")) pool("If-None-Match");
  pool("Accept", ACCEPT_VALUES);
  pool("Origin", ORIGIN_VALUES);
  pool("Host", HOST_VALUES);
  pool("X-Forwarded-For");
  if (isPaid(operation)) pool("X-PAYMENT");
  if (readsEverything) {
    for (const name of [
      "X-Forwarded-Host",
      "Mcp-Protocol-Version",
      "Mcp-Session-Id",
      "Last-Event-ID",
      "Authorization",
      "Cookie",
      "Accept-Encoding",
      "Range",
    ])
      pool(name);
  }
  const cases: FuzzCase[] = [];
  for (const [name, values] of plan) {
    for (const { name: label, value } of values) {
      cases.push({
        operation,
        what: `header ${name}: ${label}`,
        request: request(ctx, operation, { headers: [[name, value]] }),
      });
    }
  }
  return cases;
}

const CONTENT_TYPES: Array<[string, string | null]> = [
  ["none", null],
  ["text/plain", "text/plain"],
  ["form", "application/x-www-form-urlencoded"],
  ["multipart", "multipart/form-data; boundary=x"],
  ["charset=latin1", "application/json; charset=latin1"],
  ["charset=utf-16", "application/json; charset=utf-16"],
  ["unclosed charset quote", 'application/json; charset="'],
  ["upper case", "APPLICATION/JSON"],
  ["+json suffix", "application/vnd.api+json"],
  ["jsonx", "application/jsonx"],
  ["garbage", "a/b/c;;;"],
  ["raw bytes", "application/json; x=\u00e9\u00ff"],
];

const NOT_JSON: Array<[string, Buffer]> = [
  ["unclosed brace", Buffer.from("{")],
  ["bare word", Buffer.from("nope")],
  ["single quotes", Buffer.from("{'a':1}")],
  ["trailing comma", Buffer.from("[1,]")],
  ["trailing garbage", Buffer.from("{}x")],
  ["whitespace only", Buffer.from("   \n\t")],
  ["raw NUL byte", Buffer.from([0])],
  ["NaN", Buffer.from("NaN")],
  ["comment", Buffer.from("/* c */ {}")],
  ["two documents", Buffer.from('{"a":1}\n{"b":2}')],
  ["invalid UTF-8", Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])],
  ["UTF-16 with its BOM", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("{}", "utf16le")])],
];

const WRONG_TYPES: Array<[string, string]> = [
  ["array", "[]"],
  ["array of objects", "[{}]"],
  ["number", "1"],
  ["1e309", "1e309"],
  ["null", "null"],
  ["string", '"s"'],
  ["boolean", "true"],
  ["empty object", "{}"],
];

/** Replaces the value of `key` in `body` with raw JSON text (which JSON.stringify may not produce). */
function withRawField(body: Record<string, unknown>, key: string, rawValue: string | undefined): Buffer {
  const placeholder = "\u0000FUZZ\u0000";
  const copy: Record<string, unknown> = { ...body };
  if (rawValue === undefined) delete copy[key];
  else copy[key] = placeholder;
  return Buffer.from(
    JSON.stringify(copy).replace(JSON.stringify(placeholder), () => rawValue ?? ""),
    "utf8",
  );
}

function padTo(json: string, size: number): Buffer {
  const bytes = Buffer.from(json, "utf8");
  return Buffer.concat([bytes, Buffer.alloc(Math.max(0, size - bytes.length), 0x20)]);
}

/** Malformed bodies; for a paid operation each is sent once unpaid and once with a well-formed payment. */
function bodyCases(ctx: CaseContext, operation: Operation): FuzzCase[] {
  if (!operation.bodySchema) return [];
  const base = baseBodyOf(ctx, operation);
  const baseText = JSON.stringify(base);
  const bodies: Array<{ what: string; change: Change }> = [];
  const add = (what: string, change: Change) => bodies.push({ what, change });

  for (const [label, bytes] of NOT_JSON) add(`body not JSON: ${label}`, { body: bytes });
  for (const [label, text] of WRONG_TYPES) add(`body JSON of the wrong type: ${label}`, { body: Buffer.from(text) });
  add("body with a UTF-8 BOM", { body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(baseText)]) });
  add("body 3,000 levels deep", { body: Buffer.from(deepJson(3000)) });
  add("body 50 levels deep", { body: Buffer.from(deepJson(50)) });
  add("body: 10,000-element array", { body: Buffer.from(`[${new Array(10_000).fill(0).join(",")}]`) });
  add("body: 5,000 keys", {
    body: Buffer.from(JSON.stringify(Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, 0])))),
  });
  add("body: 10 kB key", { body: Buffer.from(JSON.stringify({ ["k".repeat(10 * 1024)]: 1 })) });
  add(`body of exactly MAX_BODY_BYTES (${ctx.maxBodyBytes})`, { body: padTo(baseText, ctx.maxBodyBytes) });
  add("body of MAX_BODY_BYTES + 1", { body: padTo(baseText, ctx.maxBodyBytes + 1) });
  add("body chunked", { body: Buffer.from(baseText), chunked: true });
  add("body chunked, over the limit", {
    body: padTo(baseText, ctx.maxBodyBytes * 2),
    chunked: true,
    alone: true,
    headers: [["Connection", "close"]],
  });
  add("body declared longer than MAX_BODY_BYTES", {
    body: Buffer.from(baseText),
    headers: [["Content-Length", String(ctx.maxBodyBytes * 100)]],
    alone: true,
  });
  add("body with Content-Encoding gzip (not compressed)", { headers: [["Content-Encoding", "gzip"]] });
  add("body with Content-Encoding br", { headers: [["Content-Encoding", "br"]] });
  for (const [label, type] of CONTENT_TYPES) {
    add(
      `Content-Type ${label}`,
      type === null ? { replaceHeaders: ["Content-Type"] } : { headers: [["Content-Type", type]] },
    );
  }
  if (base && typeof base === "object" && !Array.isArray(base) && operation.bodySchema.properties) {
    const record = base as Record<string, unknown>;
    const [firstKey] = Object.keys(record);
    if (firstKey) {
      const rest = baseText.slice(1);
      add("body with a duplicate key, bad value first", {
        body: Buffer.from(`{${JSON.stringify(firstKey)}:{"x":[1]},${rest}`),
      });
      add("body with a duplicate key, bad value last", {
        body: Buffer.from(`${baseText.slice(0, -1)},${JSON.stringify(firstKey)}:[null]}`),
      });
      const latin1 = Buffer.from(JSON.stringify({ ...record, [firstKey]: "caf\u00e9 au lait, latin1" }), "latin1");
      add("latin1 bytes labelled charset=latin1", {
        body: latin1,
        headers: [["Content-Type", "application/json; charset=latin1"]],
      });
      add("latin1 bytes labelled as UTF-8", { body: latin1 });
    }
    for (const [field, fieldSchema] of Object.entries(operation.bodySchema.properties)) {
      const values = [
        ...jsonValues(),
        ...schemaJsonValues(flatten(ctx.document, fieldSchema)),
        ...randomJsonValues(ctx.random, 3),
      ];
      for (const { name, value } of values)
        add(`body field ${field}: ${name}`, { body: withRawField(record, field, value) });
      if (field in record) add(`body field ${field}: missing`, { body: withRawField(record, field, undefined) });
    }
    for (const { name, value } of [
      { name: "unknown field", value: "1" },
      { name: "3,000-deep unknown field", value: deepJson(3000) },
    ]) {
      add(`body: ${name}`, { body: withRawField(record, "zzzUnknown", value) });
    }
    add("body: __proto__ field", { body: Buffer.from(`${baseText.slice(0, -1)},"__proto__":{"polluted":true}}`) });
  } else if (!operation.jsonRpc) {
    for (const { name, value } of [...jsonValues(), ...randomJsonValues(ctx.random, 3)])
      add(`body: ${name}`, { body: Buffer.from(value) });
  }

  const payment = ctx.payments.get(keyOf(operation));
  const cases: FuzzCase[] = [];
  for (const { what, change } of bodies) {
    cases.push({ operation, what, request: request(ctx, operation, change) });
    if (payment) {
      const headers = [...(change.headers ?? []), ["PAYMENT-SIGNATURE", base64Json(payment)] as [string, string]];
      cases.push({
        operation,
        what: `${what}, with a well-formed payment`,
        upstreamAllowed: true,
        request: request(ctx, operation, { ...change, headers }),
      });
    }
  }
  return cases;
}

/** Every leaf of a JSON value with its path. */
function leavesOf(value: unknown, path: string[] = []): string[][] {
  if (value && typeof value === "object") {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, child]) => leavesOf(child, [...path, key]));
  }
  return [path];
}

function replaced(value: unknown, path: string[], leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path as [string, ...string[]];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) }) as Record<
    string,
    unknown
  >;
  copy[head] = replaced(copy[head], rest, leaf);
  return copy;
}

const WRONG_LEAVES: Named<unknown>[] = [
  { name: "null", value: null },
  { name: "0", value: 0 },
  { name: "-1", value: -1 },
  { name: "1e21", value: 1e21 },
  { name: "empty string", value: "" },
  { name: "text", value: "abc" },
  { name: "huge decimal", value: "9999999999999999999999999999999999999999" },
  { name: "negative decimal", value: "-1" },
  { name: "fraction", value: "1.5" },
  { name: "hex", value: "0x" },
  { name: "NUL", value: "\u0000" },
  { name: "10 kB", value: "a".repeat(10 * 1024) },
  { name: "array", value: [] },
  { name: "object", value: {} },
];

/** A well-formed payment with one field broken at a time, plus the whole payment (502 offline). */
function paymentCases(ctx: CaseContext, operation: Operation): FuzzCase[] {
  const payment = ctx.payments.get(keyOf(operation));
  if (!payment) return [];
  const header = (value: unknown): Array<[string, string]> => [["PAYMENT-SIGNATURE", base64Json(value)]];
  const cases: FuzzCase[] = [
    {
      operation,
      what: "payment: well-formed, unverifiable offline",
      upstreamAllowed: true,
      request: request(ctx, operation, { headers: header(payment) }),
    },
  ];
  for (const path of leavesOf(payment)) {
    for (const { name, value } of WRONG_LEAVES) {
      cases.push({
        operation,
        what: `payment ${path.join(".")}: ${name}`,
        upstreamAllowed: true,
        request: request(ctx, operation, { headers: header(replaced(payment, path, value)) }),
      });
    }
  }
  for (const [key, other] of ctx.payments) {
    if (key !== keyOf(operation)) {
      cases.push({
        operation,
        what: `payment made for ${key}`,
        upstreamAllowed: true,
        request: request(ctx, operation, { headers: header(other) }),
      });
    }
  }
  cases.push({
    operation,
    what: "payment in PAYMENT-SIGNATURE and X-PAYMENT",
    upstreamAllowed: true,
    request: request(ctx, operation, { headers: [...header(payment), ["X-PAYMENT", base64Json(payment)]] }),
  });
  cases.push({
    operation,
    what: "HEAD with a payment",
    upstreamAllowed: true,
    request: request(ctx, operation, { headers: header(payment), method: "HEAD" }),
  });
  return cases;
}

const rpc = (message: unknown): Buffer => Buffer.from(JSON.stringify(message), "utf8");
const rpcRaw = (text: string): Buffer => Buffer.from(text, "utf8");

/** JSON-RPC messages: the envelope, each method's params, and each tool's arguments, one field broken at a time. */
function jsonRpcCases(ctx: CaseContext, operation: Operation): FuzzCase[] {
  if (!operation.jsonRpc) return [];
  const bodies: Array<[string, Buffer]> = [];
  const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
  for (const { name, value } of jsonValues()) {
    bodies.push([`JSON-RPC id: ${name}`, rpcRaw(`{"jsonrpc":"2.0","method":"ping","id":${value}}`)]);
    bodies.push([`JSON-RPC jsonrpc: ${name}`, rpcRaw(`{"jsonrpc":${value},"method":"ping","id":1}`)]);
    bodies.push([`JSON-RPC method: ${name}`, rpcRaw(`{"jsonrpc":"2.0","id":1,"method":${value}}`)]);
  }
  for (const method of [
    "",
    "tools/unknown",
    "rpc.discover",
    "__proto__",
    "constructor",
    "toString",
    "notifications/initialized",
    "resources/list",
    "prompts/list",
    "logging/setLevel",
    "completion/complete",
  ]) {
    bodies.push([`JSON-RPC method ${JSON.stringify(method)}`, rpc({ jsonrpc: "2.0", id: 1, method, params: {} })]);
  }
  for (const method of ["ping", "initialize", "tools/list", "tools/call"]) {
    for (const [label, params] of [
      ["string", "x"],
      ["array", [1]],
      ["number", 1],
      ["null", null],
      ["empty object", {}],
    ] as const) {
      bodies.push([`JSON-RPC ${method} params: ${label}`, rpc({ jsonrpc: "2.0", id: 1, method, params })]);
    }
  }
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
  };
  for (const path of leavesOf(initialize.params).filter((path) => path.length > 0)) {
    for (const { name, value } of WRONG_LEAVES)
      bodies.push([
        `JSON-RPC initialize ${path.join(".")}: ${name}`,
        rpc({ ...initialize, params: replaced(initialize.params, path, value) }),
      ]);
  }
  bodies.push(["JSON-RPC notification", rpc({ jsonrpc: "2.0", method: "notifications/initialized" })]);
  bodies.push([
    "JSON-RPC unknown notification",
    rpc({ jsonrpc: "2.0", method: "notifications/zzz", params: { a: deepJson(10) } }),
  ]);
  bodies.push(["JSON-RPC response sent to the server", rpc({ jsonrpc: "2.0", id: 1, result: {} })]);
  bodies.push(["JSON-RPC error sent to the server", rpc({ jsonrpc: "2.0", id: 1, error: { code: "x", message: 1 } })]);
  bodies.push(["JSON-RPC empty batch", rpc([])]);
  bodies.push(["JSON-RPC batch of two pings", rpc([ping, { ...ping, id: 2 }])]);
  bodies.push(["JSON-RPC batch with a number", rpc([ping, 1])]);
  bodies.push(["JSON-RPC batch of 500 pings", rpc(Array.from({ length: 500 }, (_, id) => ({ ...ping, id })))]);
  bodies.push(["JSON-RPC batch of notifications", rpc([{ jsonrpc: "2.0", method: "notifications/initialized" }])]);
  bodies.push(["JSON-RPC batch with duplicate ids", rpc([ping, ping])]);
  bodies.push(["JSON-RPC nested batch", rpc([[ping]])]);
  bodies.push([
    "JSON-RPC ping 3,000 levels deep in params",
    rpcRaw(`{"jsonrpc":"2.0","id":1,"method":"ping","params":${deepJson(3000)}}`),
  ]);

  for (const tool of [{ name: "no_such_tool", inputSchema: {} as JsonSchema }, ...ctx.tools]) {
    const call = (args: string) =>
      rpcRaw(
        `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":${JSON.stringify(tool.name)},"arguments":${args}}}`,
      );
    for (const [label, args] of WRONG_TYPES) bodies.push([`tool ${tool.name} arguments: ${label}`, call(args)]);
    const sample = (sampleOf(ctx.document, tool.inputSchema) ?? {}) as Record<string, unknown>;
    for (const [field, fieldSchema] of Object.entries(tool.inputSchema.properties ?? {})) {
      for (const { name, value } of [
        ...jsonValues(),
        ...schemaJsonValues(fieldSchema),
        ...randomJsonValues(ctx.random, 3),
      ]) {
        bodies.push([
          `tool ${tool.name} argument ${field}: ${name}`,
          call(withRawField(sample, field, value).toString("utf8")),
        ]);
      }
    }
    bodies.push([
      `tool ${tool.name}: unknown argument`,
      call(withRawField(sample, "zzzUnknown", "1").toString("utf8")),
    ]);
  }
  for (const { name, value } of jsonValues().slice(0, 12)) {
    bodies.push([
      `tools/call name: ${name}`,
      rpcRaw(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":${value},"arguments":{}}}`),
    ]);
  }
  return bodies.map(([what, body]) => ({ operation, what, request: request(ctx, operation, { body }) }));
}

/** One in `ALIAS_SHARE` of the value cases of an alias (an operation declared exactly like an earlier one). */
const ALIAS_SHARE = 4;

/**
 * Everything for one operation except the per-path method cases. An alias gets every routing case
 * (mangled paths, unknown parameters, which its own validator answers) but only a seeded share of
 * the value and header cases, which reach the same handler as the operation it repeats.
 */
export function casesOf(ctx: CaseContext, operation: Operation, options: { alias?: boolean } = {}): FuzzCase[] {
  const values = [
    ...queryCases(ctx, operation),
    ...headerCases(ctx, operation),
    ...bodyCases(ctx, operation),
    ...paymentCases(ctx, operation),
    ...jsonRpcCases(ctx, operation),
  ];
  const sampled = options.alias ? values.filter(() => ctx.random() < 1 / ALIAS_SHARE) : values;
  return [...sampled, ...unknownQueryCases(ctx, operation), ...pathCases(ctx, operation)];
}

/** The operation's well-formed request (required parameters, base headers and body), optionally with another body. */
export function wellFormedRequest(ctx: CaseContext, operation: Operation, body?: unknown): RawRequest {
  return request(ctx, operation, body === undefined ? {} : { body: Buffer.from(JSON.stringify(body), "utf8") });
}
