// The Bazaar metadata rules applied to what a seller's 402 declares: soft-drop, field by field.
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { describe, expect, it } from "vitest";
import {
  BAZAAR_MAX_BYTES,
  backtracksExponentially,
  readSellerMetadata,
  sanitizeBazaar,
  withoutResourceMetadata,
} from "../../src/probe/seller-metadata.js";

const weather = () =>
  declareDiscoveryExtension({
    method: "GET",
    input: { city: "San Francisco" },
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    output: { example: { city: "San Francisco", temperature: 60 } },
  } as Parameters<typeof declareDiscoveryExtension>[0]).bazaar as unknown as {
    info: Record<string, unknown>;
    schema: Record<string, unknown>;
  };

const challengeWith = (resource: Record<string, unknown>, extensions?: Record<string, unknown>) => ({
  x402Version: 2,
  resource: { url: "https://seller.example/x", ...resource } as Record<string, unknown>,
  accepts: [],
  ...(extensions && { extensions }),
});

describe("the service metadata on resource", () => {
  it("keeps honest values as declared", () => {
    const read = readSellerMetadata(
      challengeWith({
        mimeType: "text/plain; charset=utf-8",
        serviceName: "Example Weather",
        tags: ["weather", "forecast"],
        iconUrl: "https://cdn.example.com/icon.png",
      }),
    );
    expect(read).toEqual({
      metadata: {
        mimeType: "text/plain; charset=utf-8",
        serviceName: "Example Weather",
        tags: ["weather", "forecast"],
        iconUrl: "https://cdn.example.com/icon.png",
      },
      dropped: [],
    });
  });

  it("declares nothing for a challenge without metadata", () => {
    expect(readSellerMetadata(challengeWith({}))).toEqual({ metadata: {}, dropped: [] });
    expect(readSellerMetadata(null)).toEqual({ metadata: {}, dropped: [] });
  });

  it.each([
    ["100 characters", "x".repeat(100)],
    ["33 characters", "x".repeat(33)],
    ["empty", ""],
    ["non-ASCII", "Wetter für alle"],
    ["a control character", "Weather\u0007"],
    ["a newline", "Weather\nService"],
    ["not a string", 42],
  ])("drops a serviceName that is %s", (_, serviceName) => {
    const read = readSellerMetadata(challengeWith({ serviceName, tags: ["kept"] }));
    expect(read.metadata).toEqual({ tags: ["kept"] });
    expect(read.dropped).toEqual([expect.stringMatching(/^serviceName: /)]);
  });

  it("keeps a 32-character printable ASCII serviceName", () => {
    expect(readSellerMetadata(challengeWith({ serviceName: "~".repeat(32) })).metadata.serviceName).toBe(
      "~".repeat(32),
    );
  });

  it("keeps the first 5 valid tags, deduplicated ignoring case (first wins), dropping invalid ones", () => {
    const tags = [
      "Weather",
      "weather",
      "",
      "x".repeat(33),
      "forecast",
      "WEATHER",
      "ünicode",
      "maps",
      7,
      "rain",
      "snow",
      "wind",
    ];
    const read = readSellerMetadata(challengeWith({ tags }));
    expect(read.metadata.tags).toEqual(["Weather", "forecast", "maps", "rain", "snow"]);
    expect(read.dropped).toEqual([expect.stringContaining("tags: kept 5 of 12")]);
  });

  it("drops tags that are not an array of valid strings", () => {
    expect(readSellerMetadata(challengeWith({ tags: "weather" }))).toMatchObject({
      metadata: {},
      dropped: [expect.stringContaining("tags: kept 0 of 1")],
    });
    expect(readSellerMetadata(challengeWith({ tags: ["", "x".repeat(40)] })).metadata.tags).toBeUndefined();
  });

  it.each([
    "http://127.0.0.1/x.png",
    "https://[::1]/x.png",
    "https://localhost/x.png",
    "https://LOCALHOST/x.png",
    "https://localhost./x.png",
    "https://127.0.0.1./x.png",
    "https://2130706433/x.png",
    "https://0x7f000001/x.png",
    "https://%31%32%37.0.0.1/x.png",
    "https://user:pass@cdn.example.com/x.png",
    "https://user@cdn.example.com/x.png",
    "javascript:alert(1)",
    "data:image/png;base64,AAAA",
    "file:///etc/passwd",
    "/relative/icon.png",
    `https://cdn.example.com/${"a".repeat(2100)}.png`,
  ])("drops the icon %s", (iconUrl) => {
    const read = readSellerMetadata(challengeWith({ iconUrl }));
    expect(read.metadata.iconUrl).toBeUndefined();
    expect(read.dropped).toEqual([expect.stringMatching(/^iconUrl: /)]);
  });

  it("keeps an http(s) icon on a public host name", () => {
    expect(readSellerMetadata(challengeWith({ iconUrl: "http://icons.example.org/a.svg" })).metadata.iconUrl).toBe(
      "http://icons.example.org/a.svg",
    );
  });

  it("drops a mimeType that is not a media type", () => {
    for (const mimeType of ["json", "application/json\r\nX-Evil: 1", 5, `application/${"x".repeat(200)}`]) {
      expect(readSellerMetadata(challengeWith({ mimeType })).metadata.mimeType).toBeUndefined();
    }
    expect(readSellerMetadata(challengeWith({ mimeType: "image/png" })).metadata.mimeType).toBe("image/png");
  });

  it("strips the metadata fields before the SDK's strict challenge schema sees them, and nothing else", () => {
    const challenge = challengeWith({
      description: "d",
      serviceName: "x".repeat(100),
      tags: Array(9).fill("t"),
      iconUrl: 1,
      mimeType: 2,
    });
    expect(withoutResourceMetadata(challenge)).toEqual({
      x402Version: 2,
      resource: { url: "https://seller.example/x", description: "d" },
      accepts: [],
    });
    expect(challenge.resource.serviceName).toHaveLength(100);
  });
});

describe("extensions.bazaar", () => {
  it("keeps an extension whose info validates against its schema (the SDK's own declaration)", () => {
    const bazaar = weather();
    expect(sanitizeBazaar(bazaar)).toEqual({ kept: bazaar });
    expect(readSellerMetadata(challengeWith({}, { bazaar })).metadata.bazaar).toEqual(bazaar);
  });

  it("keeps only info, schema and a valid routeTemplate", () => {
    const bazaar = { ...weather(), routeTemplate: "/weather/:city", extra: "x".repeat(100) };
    expect(sanitizeBazaar(bazaar)).toEqual({
      kept: { info: bazaar.info, schema: bazaar.schema, routeTemplate: "/weather/:city" },
    });
    expect(sanitizeBazaar({ ...weather(), routeTemplate: "/a/../admin" })).toEqual({ kept: weather() });
  });

  it("refuses (drops whole) a schema with an external $ref or $id, and never fetches it", () => {
    for (const ref of [
      { $ref: "https://evil.example/schema.json" },
      { $ref: "other.json#/x" },
      { $id: "file:///etc/passwd" },
      { $ref: 5 },
    ]) {
      const bazaar = weather();
      (bazaar.schema.properties as Record<string, unknown>).output = ref;
      const verdict = sanitizeBazaar(bazaar);
      expect(verdict).toEqual({ problem: expect.stringContaining("external $") });
    }
  });

  it("allows a same-document #ref", () => {
    const bazaar = weather();
    bazaar.schema.$defs = { out: { type: "object" } };
    (bazaar.schema.properties as Record<string, unknown>).output = { $ref: "#/$defs/out" };
    expect(sanitizeBazaar(bazaar)).toEqual({ kept: bazaar });
  });

  it("drops an extension whose info does not validate against its schema", () => {
    const bazaar = weather();
    (bazaar.info.input as Record<string, unknown>).queryParams = { city: 7 };
    expect(sanitizeBazaar(bazaar)).toEqual({
      problem: expect.stringContaining("does not validate against its schema"),
    });
  });

  it("drops an extension that breaks the Bazaar spec's shape", () => {
    expect(sanitizeBazaar({ info: { input: { type: "ftp" } }, schema: { type: "object" } })).toEqual({
      problem: expect.stringContaining("Bazaar spec"),
    });
    expect(sanitizeBazaar({ info: {}, schema: { type: "object" } })).toEqual({
      problem: expect.stringContaining("Bazaar spec"),
    });
    expect(sanitizeBazaar({ schema: {} })).toEqual({ problem: "has no info object" });
    expect(sanitizeBazaar({ info: {} })).toEqual({ problem: "has no schema object" });
    expect(sanitizeBazaar([1])).toEqual({ problem: "not an object" });
  });

  it(`drops one larger than ${BAZAAR_MAX_BYTES} bytes, up to a 1 MB one`, () => {
    for (const size of [BAZAAR_MAX_BYTES, 1_000_000]) {
      const bazaar = weather();
      (bazaar.info.output as Record<string, unknown>).example = { blob: "x".repeat(size) };
      expect(sanitizeBazaar(bazaar)).toEqual({
        problem: expect.stringMatching(/^is \d+ bytes as JSON; at most 16384 are kept$/),
      });
    }
  });

  it("drops one nested deeper than its limit without overflowing the stack", () => {
    const bazaar = weather();
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 100_000; i++) deep = deep.a = {};
    (bazaar.info.output as Record<string, unknown>).example = root;
    expect(sanitizeBazaar(bazaar)).toEqual({ problem: "nests deeper than 32 levels" });
  });

  it("drops one with text no database can store", () => {
    const bazaar = weather();
    (bazaar.info.input as Record<string, unknown>).queryParams = { city: "a\u0000b" };
    expect(sanitizeBazaar(bazaar)).toEqual({ problem: expect.stringContaining("NUL") });
  });

  it("drops one whose schema has a regular expression that backtracks exponentially, before running it", () => {
    const bazaar = weather();
    const params = (bazaar.schema.properties as any).input.properties.queryParams;
    params.properties.city.pattern = "^(a+)+$";
    (bazaar.info.input as any).queryParams.city = `${"a".repeat(40)}!`;
    const started = Date.now();
    expect(sanitizeBazaar(bazaar)).toEqual({ problem: expect.stringContaining("backtrack exponentially") });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("tells risky regular expressions from ordinary ones", () => {
    for (const risky of ["(a+)+", "(a*)*b", "(a|a)*", "^(\\w+\\s?)*$", "(x+x+)+y", "(a)\\1", "((ab)*)+", "(a{2,})+"])
      expect(backtracksExponentially(risky), risky).toBe(true);
    for (const safe of [
      "^[a-z]+$",
      "^\\d{4}-\\d{2}-\\d{2}$",
      "^(https?|ftp)://",
      "(abc)+",
      "[(+*]+",
      "^0x[0-9a-fA-F]{40}$",
      "(?:ab)?c*",
    ])
      expect(backtracksExponentially(safe), safe).toBe(false);
  });

  it("reports a dropped extension without dropping the rest", () => {
    const bazaar = weather();
    (bazaar.schema.properties as Record<string, unknown>).output = { $ref: "https://evil.example/s.json" };
    const read = readSellerMetadata(challengeWith({ serviceName: "Weather" }, { bazaar }));
    expect(read.metadata).toEqual({ serviceName: "Weather" });
    expect(read.dropped).toEqual([expect.stringMatching(/^extensions\.bazaar: its schema has an external \$ref/)]);
  });
});
