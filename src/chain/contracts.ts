// Compiled local-chain contracts (generated/contracts.json, built by tools/contract-artifacts.ts).
import { parseAbi, type Abi, type Hex } from "viem";
import artifacts from "../../generated/contracts.json" with { type: "json" };

export const MULTICALL3_ADDRESS = "0xcA11bde05977b3631167028862bE2a173976CA11" as const;

export const testUsdcArtifact = artifacts.TestUsdc as { abi: Abi; bytecode: Hex };
export const multicall3Artifact = artifacts.Multicall3 as { abi: Abi; deployedBytecode: Hex };

/** The TestUsdc functions that runtime code and tests call, typed for viem. */
export const testUsdcAbi = parseAbi([
  "function name() view returns (string)",
  "function symbol() view returns (string)",
  "function version() view returns (string)",
  "function decimals() view returns (uint8)",
  "function balanceOf(address account) view returns (uint256)",
  "function totalSupply() view returns (uint256)",
  "function mint(address to, uint256 amount)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
]);
