// The layer rules of src/, checked by `npm run check:layers` (part of `npm test`).
//
// Layers, top to bottom. A module imports only from its own layer or a layer below it: never
// upward, and never in a cycle. Type-only imports count (tsPreCompilationDeps): a type imported
// upward still ties the lower layer to the upper one.
const LAYERS = [
  {
    name: "composition",
    label: "composition (src/main.ts, src/server.ts, src/readiness.ts, src/background-jobs.ts, src/repositories.ts)",
    path: "^src/(main|server|readiness|background-jobs|repositories)\\.ts$",
  },
  { name: "handlers", label: "src/handlers/", path: "^src/handlers/" },
  { name: "services", label: "src/services.ts", path: "^src/services\\.ts$" },
  { name: "http", label: "src/http/", path: "^src/http/" },
  { name: "a2a", label: "src/a2a/", path: "^src/a2a/" },
  { name: "mcp", label: "src/mcp/", path: "^src/mcp/" },
  // The market tools MCP registers as its tools and A2A calls as its skills: neither protocol is built to answer the other.
  { name: "market-tools", label: "src/market-tools/", path: "^src/market-tools/" },
  // Signed webhooks: subscriptions (the owner signature rules of listing/) and delivery of the change log.
  { name: "webhooks", label: "src/webhooks/", path: "^src/webhooks/" },
  // The index crawler: other catalogs and domains read into indexed rows (the probe, storage, the snapshot check).
  { name: "indexing", label: "src/indexing/", path: "^src/indexing/" },
  // Handlers, MCP tools and A2A skills read the catalog through these; documents/ and web/ render what they return.
  { name: "queries", label: "src/queries/", path: "^src/queries/" },
  { name: "listing", label: "src/listing/, src/health/", path: "^src/(listing|health)/" },
  { name: "documents", label: "src/documents/, src/web/", path: "^src/(documents|web)/" },
  {
    name: "catalog-payments-probe",
    label: "src/catalog/, src/payments/, src/probe/, src/usage/",
    path: "^src/(catalog|payments|probe|usage)/",
  },
  { name: "market", label: "src/market/", path: "^src/market/" },
  {
    name: "contract-storage-chain",
    label: "src/contract/, src/storage/, src/chain/, src/jobs/, src/workers/, src/search/",
    path: "^src/(contract|storage|chain|jobs|workers|search)/",
  },
  {
    name: "foundation",
    label:
      "src/constants.ts, src/config.ts, src/config-*.ts, src/logger.ts, src/metrics.ts, src/request-context.ts, generated/",
    path: "^(src/(constants|config[a-z-]*|logger|metrics|request-context)\\.ts$|generated/)",
  },
];

const either = (paths) => paths.map((path) => `(${path})`).join("|");

/** One rule per layer: nothing in it imports any layer above it. */
const upwardRules = LAYERS.slice(1).map((layer, index) => {
  const above = LAYERS.slice(0, index + 1);
  return {
    name: `upward-from-${layer.name}`,
    comment: `${layer.label} (layer ${index + 2}) imports only its own layer and those below it, never a layer above: ${above.map((a) => a.label).join("; ")}`,
    severity: "error",
    from: { path: layer.path },
    to: { path: either(above.map((a) => a.path)) },
  };
});

// What the published client (package.json "exports") may import: it is shipped to users, so it
// carries the contract's types and the link table, never server code. payments/buyer.ts is the
// SDK's x402 client set-up, which imports only libraries; the reachability rule below keeps it so.
const CLIENT_MAY_IMPORT = [
  "^src/client/",
  "^generated/",
  "^src/constants\\.ts$",
  "^src/market/links\\.ts$",
  "^src/payments/buyer\\.ts$",
];
// Everything the client may reach, also through the modules above (links.ts names the type
// MarketFacts, which names Config; constants.ts reads the contract's version from generated/).
const CLIENT_MAY_REACH = [...CLIENT_MAY_IMPORT, "^src/market/facts\\.ts$", "^src/config[a-z-]*\\.ts$"];

// What the CLI may import: the client and what the client may import, the payer's x402 client,
// and src/chain/ and the layers below. Never the server (composition, handlers, http, ...).
const CLI_MAY_IMPORT = [
  "^src/cli/",
  "^src/client/",
  "^src/payments/buyer\\.ts$",
  "^src/market/links\\.ts$",
  LAYERS.find((layer) => layer.name === "contract-storage-chain").path,
  LAYERS.find((layer) => layer.name === "foundation").path,
];

// http/ is the Koa pipeline: it knows the contract and the foundation, and nothing of the domain.
const HTTP_MAY_IMPORT = [
  "^src/http/",
  "^src/contract/",
  "^src/(logger|config[a-z-]*|constants|metrics|request-context)\\.ts$",
  "^generated/",
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment:
        "Modules in src/ may not import each other in a cycle: split out what both need into a module of its own.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "not-to-unresolvable",
      comment:
        "Every import must resolve (a .js specifier resolves to its .ts file); an unresolved one would escape these rules.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
    ...upwardRules,
    {
      name: "http-imports-beyond-contract",
      comment:
        "src/http/ may import only src/contract/, src/logger.ts, src/config.ts, src/constants.ts, generated/ and libraries: never catalog/, documents/, listing/, market/, mcp/, payments/, probe/, storage/, chain/ (the upward ones are upward-from-http)",
      severity: "error",
      from: { path: "^src/http/" },
      to: {
        path: "^(src|generated)/",
        pathNot: either([...HTTP_MAY_IMPORT, ...LAYERS.slice(0, 3).map((layer) => layer.path)]),
      },
    },
    {
      name: "documents-or-web-imports-storage",
      comment:
        "src/documents/ and src/web/ only render what they are given: they may not import src/storage/, types included (the catalog's queries in src/queries/ read it; row types come from src/catalog/rows.ts).",
      severity: "error",
      from: { path: "^src/(documents|web)/" },
      to: { path: "^src/storage/" },
    },
    {
      name: "handlers-import-storage",
      comment:
        "src/handlers/ may not import src/storage/, types included: a handler gets its stores and reads through its area's context (src/services.ts) and the queries (src/queries/); row types come from src/catalog/rows.ts.",
      severity: "error",
      from: { path: "^src/handlers/" },
      to: { path: "^src/storage/" },
    },
    {
      name: "a2a-imports-mcp",
      comment:
        "src/a2a/ answers with the market tools (src/market-tools/), never through src/mcp/ or the MCP SDK: no protocol's server is built to answer another protocol.",
      severity: "error",
      from: { path: "^src/a2a/" },
      to: { path: "^src/mcp/|@modelcontextprotocol/sdk" },
    },
    {
      name: "market-tools-imports-a-protocol",
      comment:
        "src/market-tools/ knows no protocol: it may not import the MCP or A2A SDKs (the refusal texts it shares with MCP are its own words).",
      severity: "error",
      from: { path: "^src/market-tools/" },
      to: { path: "@modelcontextprotocol/sdk|@a2a-js/sdk" },
    },
    {
      name: "catalog-imports-payments-or-probe",
      comment: "src/catalog/ may not import src/payments/ or src/probe/ (they share a layer and stay independent).",
      severity: "error",
      from: { path: "^src/catalog/" },
      to: { path: "^src/(payments|probe)/" },
    },
    {
      name: "payments-or-probe-imports-catalog",
      comment: "src/payments/ and src/probe/ may not import src/catalog/ (they share a layer and stay independent).",
      severity: "error",
      from: { path: "^src/(payments|probe)/" },
      to: { path: "^src/catalog/" },
    },
    {
      name: "server-imports-side-packages",
      comment:
        "The service (src/ outside client/ and cli/, and generated/) may not import the side packages src/client/ or src/cli/.",
      severity: "error",
      from: { path: "^(src|generated)/", pathNot: "^src/(client|cli)/" },
      to: { path: "^src/(client|cli)/" },
    },
    {
      name: "client-imports-server",
      comment:
        "src/client/ (the published client) may import only generated/, src/constants.ts, src/market/links.ts, src/payments/buyer.ts and libraries.",
      severity: "error",
      from: { path: "^src/client/" },
      to: { path: "^(src|generated)/", pathNot: either(CLIENT_MAY_IMPORT) },
    },
    {
      name: "client-reaches-server",
      comment:
        "Through the modules it may import, src/client/ may reach only generated/, src/constants.ts, src/config.ts, src/market/links.ts, src/market/facts.ts and src/payments/buyer.ts: it is shipped to users without the server.",
      severity: "error",
      from: { path: "^src/client/" },
      to: { path: "^(src|generated)/", pathNot: either(CLIENT_MAY_REACH), reachable: true },
    },
    {
      name: "cli-imports-server",
      comment:
        "src/cli/ may import only src/client/, src/payments/buyer.ts, src/market/links.ts, src/contract/, src/storage/, src/chain/, src/constants.ts, src/config.ts, src/logger.ts, generated/ and libraries: never the server, handlers or http.",
      severity: "error",
      from: { path: "^src/cli/" },
      to: { path: "^(src|generated)/", pathNot: either(CLI_MAY_IMPORT) },
    },
  ],
  options: {
    // Prisma's generated client is not ours to layer (it has cycles of its own), and skipping its
    // insides keeps the check fast; imports of it still count.
    doNotFollow: { path: ["node_modules", "^generated/prisma/"] },
    // Type-only imports are dependencies too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
