// The layer check (npm run check:layers, part of npm test) on small trees laid out like src/: a tree
// that keeps the layers passes, and each kind of bad import fails it with the rule that names it.
// The script from package.json runs as npm runs it, with the repository's .dependency-cruiser.cjs.
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../", import.meta.url));
const script = (JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { scripts: Record<string, string> })
  .scripts["check:layers"]!;
const work = mkdtempSync(join(tmpdir(), "layers-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Tree = Record<string, string>;

/** One module per layer, each importing downward (type-only imports too), plus the client and the CLI. */
const GOOD: Tree = {
  "tsconfig.json": JSON.stringify({
    compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true },
    include: ["src", "generated"],
  }),
  "generated/openapi.ts": 'export interface paths { "/status.json": unknown }\n',
  "src/constants.ts":
    'import type { paths } from "../generated/openapi.js";\nexport const STATUS: keyof paths = "/status.json";\n',
  "src/config.ts": 'import { STATUS } from "./constants.js";\nexport const config = { status: STATUS };\n',
  "src/logger.ts": "export const log = (message: string) => message;\n",
  "src/contract/errors.ts":
    'import { log } from "../logger.js";\nexport const fail = (message: string) => log(message);\n',
  "src/storage/db.ts": 'import { config } from "../config.js";\nexport const db = { ...config };\n',
  "src/chain/rpc.ts": 'import { config } from "../config.js";\nexport const rpc = () => config;\n',
  "src/market/links.ts":
    'import type { paths } from "../../generated/openapi.js";\nexport const linkTo = (path: keyof paths) => path;\n',
  "src/catalog/items.ts":
    'import { db } from "../storage/db.js";\nimport { linkTo } from "../market/links.js";\nexport const items = () => [db, linkTo("/status.json")];\n',
  "src/payments/buyer.ts":
    'import { createHash } from "node:crypto";\nexport const buyer = () => createHash("sha256");\n',
  "src/payments/gate.ts":
    'import { rpc } from "../chain/rpc.js";\nimport { buyer } from "./buyer.js";\nexport const gate = () => [rpc(), buyer()];\n',
  "src/probe/probe.ts": 'import { config } from "../config.js";\nexport const probe = () => config;\n',
  "src/documents/cards.ts": 'import { items } from "../catalog/items.js";\nexport const cards = () => items();\n',
  "src/listing/create.ts":
    'import { cards } from "../documents/cards.js";\nimport { gate } from "../payments/gate.js";\nimport { probe } from "../probe/probe.js";\nexport const create = () => [cards(), gate(), probe()];\n',
  "src/mcp/tools.ts": 'import { create } from "../listing/create.js";\nexport const tools = [create];\n',
  "src/http/router.ts":
    'import { fail } from "../contract/errors.js";\nimport type { paths } from "../../generated/openapi.js";\nexport const route = (path: keyof paths) => fail(path);\n',
  "src/services.ts":
    'import type { db } from "./storage/db.js";\nimport type { items } from "./catalog/items.js";\nexport interface Services { db: typeof db; items: typeof items }\n',
  "src/handlers/cards.ts":
    'import type { Services } from "../services.js";\nimport { cards } from "../documents/cards.js";\nimport { tools } from "../mcp/tools.js";\nexport const handle = (services: Services) => [services, cards(), tools];\n',
  "src/repositories.ts": 'import { db } from "./storage/db.js";\nexport const createRepositories = () => ({ db });\n',
  "src/server.ts":
    'import { handle } from "./handlers/cards.js";\nimport { route } from "./http/router.js";\nimport { createRepositories } from "./repositories.js";\nexport const server = { handle, route, createRepositories };\n',
  "src/main.ts":
    'import { server } from "./server.js";\nimport { config } from "./config.js";\nexport const main = () => [server, config];\n',
  "src/client/client.ts":
    'import type { paths } from "../../generated/openapi.js";\nimport { STATUS } from "../constants.js";\nimport { linkTo } from "../market/links.js";\nexport const status = (): keyof paths => linkTo(STATUS);\n',
  "src/client/pay.ts": 'import { buyer } from "../payments/buyer.js";\nexport const pay = () => buyer();\n',
  "src/client/index.ts": 'export { status } from "./client.js";\nexport { pay } from "./pay.js";\n',
  "src/cli/main.ts":
    'import { status } from "../client/index.js";\nimport { buyer } from "../payments/buyer.js";\nimport { linkTo } from "../market/links.js";\nimport { rpc } from "../chain/rpc.js";\nexport const cli = () => [status(), buyer(), linkTo("/status.json"), rpc()];\n',
};

let trees = 0;

async function checkLayers(changes: Tree): Promise<{ code: number; output: string }> {
  const dir = join(work, String(trees++));
  for (const [path, text] of Object.entries({ ...GOOD, ...changes })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  copyFileSync(join(repo, ".dependency-cruiser.cjs"), join(dir, ".dependency-cruiser.cjs"));
  const env = { ...process.env, PATH: `${join(repo, "node_modules", ".bin")}:${process.env.PATH ?? ""}` };
  return new Promise((resolve) => {
    execFile("sh", ["-c", script], { cwd: dir, env }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr });
    });
  });
}

// Each run starts node and TypeScript (about 1.5 s of CPU); on two cores four run side by side.
describe.concurrent("npm run check:layers", { timeout: 60_000 }, () => {
  it("passes a tree that imports only downward, with its .js specifiers resolved to the .ts files", async () => {
    const { code, output } = await checkLayers({});
    expect(output).toMatch(/no dependency violations found \(26 modules, 4\d dependencies cruised\)/);
    expect(code).toBe(0);
  });

  it("fails on a type-only import of a layer above, saying which layer may not import which", async () => {
    const { code, output } = await checkLayers({
      "src/storage/upward.ts": 'import type { Services } from "../services.js";\nexport type Bag = Services;\n',
    });
    expect(output).toMatch(/error upward-from-contract-storage-chain: src\/storage\/upward\.ts → src\/services\.ts\n/);
    // err-long wraps the rule's comment: match its words across line breaks.
    const words = (text: string) =>
      new RegExp(
        text
          .split(" ")
          .map((word) => word.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))
          .join("\\s+"),
      );
    expect(output).toMatch(
      words(
        "src/contract/, src/storage/, src/chain/, src/jobs/, src/workers/, src/search/ (layer 15) imports only its own layer and those below it, never a layer above: composition",
      ),
    );
    expect(output).toMatch(/x 1 dependency violations \(1 errors, 0 warnings\)/);
    expect(code).not.toBe(0);
  });

  it("fails on an import cycle inside one layer", async () => {
    const { code, output } = await checkLayers({
      "src/catalog/a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
      "src/catalog/b.ts": 'import { a } from "./a.js";\nexport const b = () => a;\n',
    });
    expect(output).toMatch(
      /error no-circular: src\/catalog\/a\.ts → \n\s+src\/catalog\/b\.ts →\n\s+src\/catalog\/a\.ts/,
    );
    expect(output).toMatch(/x 1 dependency violations \(1 errors, 0 warnings\)/);
    expect(code).not.toBe(0);
  });

  it("fails on every other forbidden import, each named by its rule", async () => {
    const { code, output } = await checkLayers({
      // a value import upward
      "src/documents/upward.ts": 'import { create } from "../listing/create.js";\nexport const again = create;\n',
      // a document on storage, below it but not its to read
      "src/documents/stored.ts": 'import type { db } from "../storage/db.js";\nexport type Stored = typeof db;\n',
      // a handler on storage, below it but reached only through its context and the queries
      "src/handlers/stored.ts": 'import type { db } from "../storage/db.js";\nexport type Stored = typeof db;\n',
      // http/ on the domain below it
      "src/http/search.ts": 'import { items } from "../catalog/items.js";\nexport const search = items;\n',
      // catalog/ and probe/, payments/ and catalog/
      "src/catalog/probed.ts": 'import { probe } from "../probe/probe.js";\nexport const probed = probe;\n',
      "src/payments/priced.ts": 'import { items } from "../catalog/items.js";\nexport const priced = items;\n',
      // the service on the published client
      "src/listing/remote.ts": 'import { status } from "../client/index.js";\nexport const remote = status;\n',
      // the client on server code, directly and through payments/buyer.ts
      "src/client/inside.ts": 'import { fail } from "../contract/errors.js";\nexport const inside = fail;\n',
      "src/payments/buyer.ts": 'import { rpc } from "../chain/rpc.js";\nexport const buyer = () => rpc();\n',
      // the CLI on a handler
      "src/cli/serve.ts": 'import { handle } from "../handlers/cards.js";\nexport const serve = handle;\n',
      // an import that does not resolve
      "src/market/broken.ts": 'import { gone } from "./missing.js";\nexport const broken = gone;\n',
    });
    for (const line of [
      /error upward-from-documents: src\/documents\/upward\.ts → src\/listing\/create\.ts\n/,
      /error documents-or-web-imports-storage: src\/documents\/stored\.ts → src\/storage\/db\.ts\n/,
      /error handlers-import-storage: src\/handlers\/stored\.ts → src\/storage\/db\.ts\n/,
      /error http-imports-beyond-contract: src\/http\/search\.ts → src\/catalog\/items\.ts\n/,
      /error catalog-imports-payments-or-probe: src\/catalog\/probed\.ts → src\/probe\/probe\.ts\n/,
      /error payments-or-probe-imports-catalog: src\/payments\/priced\.ts → src\/catalog\/items\.ts\n/,
      /error server-imports-side-packages: src\/listing\/remote\.ts → src\/client\/index\.ts\n/,
      /error client-imports-server: src\/client\/inside\.ts → src\/contract\/errors\.ts\n/,
      /error client-reaches-server: src\/client\/pay\.ts → src\/chain\/rpc\.ts\n/,
      /error cli-imports-server: src\/cli\/serve\.ts → src\/handlers\/cards\.ts\n/,
      /error not-to-unresolvable: src\/market\/broken\.ts → \.\/missing\.js\n/,
    ]) {
      expect(output).toMatch(line);
    }
    expect(code).not.toBe(0);
  });
});
