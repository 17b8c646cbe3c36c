// Compiles the local-chain contracts (src/chain/contracts) into generated/contracts.json.
// Source names are repo-relative and the metadata hash is left out, so the output depends only
// on the sources, the solc version and the settings below, never on the checkout's location.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import solc from "solc";

const require = createRequire(import.meta.url);
const repoRoot = fileURLToPath(new URL("..", import.meta.url));

export const CONTRACTS_ARTIFACT_PATH = "generated/contracts.json";

const SOURCES = {
  TestUsdc: "src/chain/contracts/TestUsdc.sol",
  Multicall3: "src/chain/contracts/Multicall3.sol",
} as const;

const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  metadata: { bytecodeHash: "none", appendCBOR: false },
  outputSelection: {
    "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] },
  },
};

interface SolcContract {
  abi: unknown[];
  evm: { bytecode: { object: string }; deployedBytecode: { object: string } };
}

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts?: Record<string, Record<string, SolcContract>>;
}

function readImport(path: string): { contents: string } | { error: string } {
  try {
    const file = path.startsWith("@") ? require.resolve(path) : `${repoRoot}${path}`;
    return { contents: readFileSync(file, "utf8") };
  } catch (error) {
    return { error: `cannot import ${path}: ${(error as Error).message}` };
  }
}

function compile(): Record<keyof typeof SOURCES, SolcContract> {
  const sources = Object.fromEntries(
    Object.values(SOURCES).map((path) => [path, { content: readFileSync(`${repoRoot}${path}`, "utf8") }]),
  );
  const input = { language: "Solidity", sources, settings: SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: readImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join("\n")}`);
  }
  const pick = (name: keyof typeof SOURCES): SolcContract => {
    const contract = output.contracts?.[SOURCES[name]]?.[name];
    if (!contract) throw new Error(`solc produced no output for ${name}`);
    return contract;
  };
  return { TestUsdc: pick("TestUsdc"), Multicall3: pick("Multicall3") };
}

export async function renderContractArtifacts(): Promise<Map<string, string>> {
  const { TestUsdc, Multicall3 } = compile();
  const artifacts = {
    TestUsdc: { abi: TestUsdc.abi, bytecode: `0x${TestUsdc.evm.bytecode.object}` },
    Multicall3: { abi: Multicall3.abi, deployedBytecode: `0x${Multicall3.evm.deployedBytecode.object}` },
  };
  return new Map([[CONTRACTS_ARTIFACT_PATH, `${JSON.stringify(artifacts, null, 2)}\n`]]);
}
