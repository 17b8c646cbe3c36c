// A throwaway chain for development and tests: anvil with chain id 8453 (Base), an EIP-3009 USDC
// stand-in, Multicall3 at its canonical address, and funded buyer accounts.
import { pbkdf2Sync } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  http,
  parseUnits,
  toHex,
  type Address,
  type Chain,
  type Hex,
  type HttpTransport,
  type PublicClient,
} from "viem";
import { HDKey, privateKeyToAccount } from "viem/accounts";
import { startAnvil } from "./anvil.js";
import { MULTICALL3_ADDRESS, multicall3Artifact, testUsdcAbi, testUsdcArtifact } from "./contracts.js";
import { createPendingNonceManager } from "./nonce-manager.js";
import { chainForRpc } from "./viem-chain.js";
import { CHAIN_ID } from "../constants.js";

export { chainForRpc } from "./viem-chain.js";

export const LOCAL_CHAIN_ID = CHAIN_ID;
export const LOCAL_NETWORK = `eip155:${LOCAL_CHAIN_ID}` as const;
/** anvil's default mnemonic: well-known keys, never to hold real funds. */
export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";
export const USDC_DECIMALS = 6;

export interface ChainAccount {
  address: Address;
  privateKey: Hex;
}

export interface LocalChainLogger {
  info(message: string): void;
}

export interface StartLocalChainOptions {
  /** 0 or undefined: a free port. */
  port?: number;
  /** Number of funded buyer accounts (default 3). */
  buyers?: number;
  /** USDC minted to each buyer, in whole units (default "1000"). */
  fundUsdc?: string;
  logger?: LocalChainLogger;
}

export interface LocalChain {
  rpcUrl: string;
  chainId: typeof LOCAL_CHAIN_ID;
  network: typeof LOCAL_NETWORK;
  chain: Chain;
  /** TestUsdc address. */
  asset: Address;
  /** Receives listing fees; nothing here needs its key. */
  marketplacePayTo: Address;
  /** Broadcasts settlements and pays their gas. */
  settler: ChainAccount;
  buyers: ChainAccount[];
  publicClient: PublicClient<HttpTransport, Chain>;
  balanceOf(address: Address): Promise<bigint>;
  /** Mints TestUsdc (atomic units) to any address. */
  mintUsdc(to: Address, amount: bigint): Promise<void>;
  stop(): Promise<void>;
}

/** The JSON written by {@link writeChainFile} (e.g. `.dev/chain.json`). */
export interface ChainFile {
  rpcUrl: string;
  chainId: number;
  asset: Address;
  marketplacePayTo: Address;
  buyers: ChainAccount[];
}

/** Accounts 0..count-1 of a BIP-39 mnemonic on the standard Ethereum path, as anvil derives them. */
export function deriveAccounts(mnemonic: string, count: number): ChainAccount[] {
  const seed = pbkdf2Sync(mnemonic.normalize("NFKD"), "mnemonic", 2048, 64, "sha512");
  const master = HDKey.fromMasterSeed(seed);
  return Array.from({ length: count }, (_, index) => {
    const privateKey = toHex(master.derive(`m/44'/60'/0'/0/${index}`).privateKey!);
    return { address: privateKeyToAccount(privateKey).address, privateKey };
  });
}

/** How long one start may wait for a receipt (viem's default is 180 s; anvil mines on submission). */
const RECEIPT_TIMEOUT_MS = 20_000;
/** Starts tried before giving up: a start that stalls (a receipt that never comes) is stopped and made again. */
const START_ATTEMPTS = 3;

/**
 * A local anvil chain with TestUsdc deployed and the buyers funded. Each step is bounded; a start
 * that fails or stalls is stopped and tried again with a fresh anvil (twice at most). In the test
 * suite a start twice waited past its 120-s hook; the step that stalled was not found, and only a
 * receipt's wait (180 s by viem's default) could wait that long.
 */
export async function startLocalChain(options: StartLocalChainOptions = {}): Promise<LocalChain> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startLocalChainOnce(options);
    } catch (error) {
      if (attempt >= START_ATTEMPTS) throw error;
      options.logger?.info(
        `local chain: start ${attempt} failed (${error instanceof Error ? error.message.split("\n")[0] : String(error)}); starting again`,
      );
    }
  }
}

async function startLocalChainOnce(options: StartLocalChainOptions): Promise<LocalChain> {
  const buyerCount = options.buyers ?? 3;
  const fundAmount = parseUnits(options.fundUsdc ?? "1000", USDC_DECIMALS);
  const [deployer, settler, payTo, ...buyers] = deriveAccounts(ANVIL_MNEMONIC, 3 + buyerCount) as [
    ChainAccount,
    ChainAccount,
    ChainAccount,
    ...ChainAccount[],
  ];

  const anvil = await startAnvil({
    port: options.port,
    chainId: LOCAL_CHAIN_ID,
    mnemonic: ANVIL_MNEMONIC,
    accounts: 3 + buyerCount,
  });
  try {
    const chain = chainForRpc(anvil.rpcUrl, LOCAL_CHAIN_ID);
    const transport = http(anvil.rpcUrl);
    // anvil mines on submission, but a receipt asked for at once can still miss; viem would then wait 4 s.
    const pollingInterval = 50;
    const publicClient = createPublicClient({ chain, transport, pollingInterval });
    const ownerAccount = privateKeyToAccount(deployer.privateKey, { nonceManager: createPendingNonceManager() });
    const owner = createWalletClient({ account: ownerAccount, chain, transport, pollingInterval });

    const [deployHash] = await Promise.all([
      owner.deployContract({ abi: testUsdcArtifact.abi, bytecode: testUsdcArtifact.bytecode }),
      createTestClient({ mode: "anvil", chain, transport }).setCode({
        address: MULTICALL3_ADDRESS,
        bytecode: multicall3Artifact.deployedBytecode,
      }),
    ]);
    const { contractAddress, status } = await publicClient.waitForTransactionReceipt({
      hash: deployHash,
      timeout: RECEIPT_TIMEOUT_MS,
    });
    if (status !== "success" || !contractAddress) throw new Error("TestUsdc deployment failed");
    const asset = getAddress(contractAddress);

    const mintUsdc = async (to: Address, amount: bigint) => {
      const hash = await owner.writeContract({
        address: asset,
        abi: testUsdcAbi,
        functionName: "mint",
        args: [to, amount],
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
      if (receipt.status !== "success") throw new Error(`minting to ${to} failed`);
    };
    await Promise.all(buyers.map((buyer) => mintUsdc(buyer.address, fundAmount)));

    let stopped: Promise<void> | undefined;
    const localChain: LocalChain = {
      rpcUrl: anvil.rpcUrl,
      chainId: LOCAL_CHAIN_ID,
      network: LOCAL_NETWORK,
      chain,
      asset,
      marketplacePayTo: payTo.address,
      settler,
      buyers,
      publicClient,
      balanceOf: (address) =>
        publicClient.readContract({ address: asset, abi: testUsdcAbi, functionName: "balanceOf", args: [address] }),
      mintUsdc,
      stop: () => (stopped ??= anvil.stop()),
    };
    options.logger?.info(`local chain ${LOCAL_NETWORK} at ${anvil.rpcUrl}, TestUsdc ${asset}`);
    return localChain;
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

export async function writeChainFile(path: string, chain: LocalChain): Promise<void> {
  const file: ChainFile = {
    rpcUrl: chain.rpcUrl,
    chainId: chain.chainId,
    asset: chain.asset,
    marketplacePayTo: chain.marketplacePayTo,
    buyers: chain.buyers.map(({ address, privateKey }) => ({ address, privateKey })),
  };
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
}
