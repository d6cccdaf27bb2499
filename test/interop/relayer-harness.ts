// Running `warpgate relay` against the interop network from a test, on a configuration of its
// own (a copy of the harness's relayerConfig with its own store, and whatever the test changes),
// and counting deliveries on the destination the way 60-relayer does: the messenger's
// ReceiveCrossChainMessage events and every transaction the delivering key sent to it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { createWalletClient, defineChain, http, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { cleanEnv, request, startWarpgate, waitFor, type WarpgateProcess } from '../ops/helpers.js';
import type { FundedKey, NetworkDescription } from './paths.js';
import type { TeleporterChain } from './teleporter.js';

export interface RelayerChainConfig {
  blockchainId: string;
  rpcUrl: string;
  wsUrl?: string;
  teleporterAddress: string;
}

export interface RelayerConfigFile {
  relayer: {
    chains: RelayerChainConfig[];
    routes: { source: string; destination: string; maxRequiredGasLimit?: number }[];
    keys: ({ file: string } | { env: string })[];
    storePath: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/**
 * Writes a copy of the network's relayerConfig into a fresh directory, with a store of its own
 * there (so no other relayer's checkpoints or lock are in the way), changed by `edit`.
 * Returns the copy's path and the directory.
 */
const copies: string[] = [];

export function relayerConfigCopy(net: NetworkDescription, edit: (config: RelayerConfigFile, dir: string) => void = () => undefined): { path: string; dir: string } {
  const dir = mkdtempSync(`${tmpdir()}/warpgate-interop62-`);
  copies.push(dir);
  const config = JSON.parse(readFileSync(net.relayerConfig, 'utf8')) as RelayerConfigFile;
  config.relayer.storePath = `${dir}/store`;
  edit(config, dir);
  const path = `${dir}/relayer.json`;
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
  return { path, dir };
}

/** Removes the directories relayerConfigCopy made (their stores and keys); call once its relayers are gone. */
export function removeConfigCopies(): void {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface Relayer {
  url: string;
  proc: WarpgateProcess;
}

/** `warpgate relay --config <path>` from the sources; resolves once it listens, and, unless told otherwise, once /ready says 200. */
export async function startRelayer(configPath: string, options: { waitReady?: boolean } = {}): Promise<Relayer> {
  const proc = startWarpgate(['relay', '--config', configPath], cleanEnv());
  const line = await proc.waitForLine((l) => l.includes('"warpgate listening"'), 120_000);
  const url = (JSON.parse(line) as { url: string }).url;
  if (options.waitReady !== false) {
    await waitFor('the relayer /ready', async () => ((await request(`${url}/ready`)).status === 200 ? true : undefined), 180_000, 500);
  }
  return { url, proc };
}

export async function heads(cChain: TeleporterChain, l1: TeleporterChain): Promise<{ c: bigint; l: bigint }> {
  return { c: await cChain.client.getBlockNumber(), l: await l1.client.getBlockNumber() };
}

/** The relayer's /ready: its status and the reasons it gives. */
export async function readiness(url: string): Promise<{ status: number; body: Record<string, any> }> {
  const res = await request(`${url}/ready`);
  return { status: res.status, body: (res.body ?? {}) as Record<string, any> };
}

export interface CuttableProxy {
  /** ws://… or http://… through the relay, with the target's path. */
  url: string;
  /** Cuts every open connection and refuses new ones (accepted, then closed at once) until up(). */
  down(): void;
  up(): void;
  close(): void;
}

/** A TCP relay to `target` whose connections can be cut and refused, to drop a WebSocket for real. */
export async function cuttableProxy(target: string): Promise<CuttableProxy> {
  const { protocol, hostname, port, pathname } = new URL(target);
  const sockets = new Set<Socket>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        // One side gone: the other goes too, as a real cut would leave it.
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `${protocol}//127.0.0.1:${address.port}${pathname}`,
    down: () => {
      refusing = true;
      sockets.forEach((s) => s.destroy());
    },
    up: () => {
      refusing = false;
    },
    close: () => {
      refusing = true;
      sockets.forEach((s) => s.destroy());
      server.close();
    },
  };
}

/** A loopback port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Sends `value` wei of the chain's native coin from `from` to `to` and waits for its receipt. */
export async function fund(chain: TeleporterChain, from: FundedKey, to: Address, value: bigint): Promise<void> {
  const viemChain = defineChain({ id: chain.evmChainId, name: chain.name, nativeCurrency: { name: 'AVAX', symbol: 'AVAX', decimals: 18 }, rpcUrls: { default: { http: [chain.rpcUrl] } } });
  const wallet = createWalletClient({ account: privateKeyToAccount(from.privateKey), chain: viemChain, transport: http(chain.rpcUrl, { timeout: 30_000 }) });
  const hash = await wallet.sendTransaction({ to, value, gas: 21_000n });
  const receipt = await chain.client.waitForTransactionReceipt({ hash, timeout: 60_000 });
  if (receipt.status !== 'success') throw new Error(`funding ${to} on ${chain.name} (${hash}) failed`);
}
