// What the interop tests share: warpgate started as a user would start it against the real
// network, JSON-RPC to the nodes, and avalanchego's own verdict on a signed message
// (`interop verify`, interop/cmd/interop/verify.go).
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, request, startWarpgate, waitFor, type WarpgateProcess } from '../ops/helpers.js';
import { INTEROP_BIN, type NetworkDescription } from './paths.js';

export const PRIMARY_NETWORK_ID = '11111111111111111111111111111111LpoYY';

export interface Warpgate {
  url: string;
  proc: WarpgateProcess;
  stop(): Promise<void>;
}

/**
 * `warpgate serve` with the configuration a user of this network would write: one node's URI,
 * the local network ID, p2p only (no signer peers, no p2p.peers list), and readiness over the
 * subnets it signs for, so /ready says when their validators are connected (`extra` may drop
 * that: `{ readiness: { subnets: [] } }`, and /ready then waits only for the node).
 */
export async function startWarpgateFor(net: NetworkDescription, extra: Record<string, unknown> = {}): Promise<Warpgate> {
  const dir = mkdtempSync(join(tmpdir(), 'warpgate-interop-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      host: '127.0.0.1',
      port: 0,
      upstreams: { node: net.nodes[0]!.uri },
      localNetworkId: net.networkId,
      peers: [],
      p2p: { enabled: true },
      readiness: { subnets: [PRIMARY_NETWORK_ID, net.l1.subnetId] },
      ...extra,
    }),
  );
  const proc = startWarpgate(['serve', '--config', configFile], cleanEnv());
  const line = await proc.waitForLine((l) => l.includes('"warpgate listening"'), 120_000);
  const url = (JSON.parse(line) as { url: string }).url;
  await waitFor('warpgate /ready', async () => ((await request(`${url}/ready`)).status === 200 ? true : undefined), 120_000, 500);
  return {
    url,
    proc,
    async stop() {
      await proc.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * warpgate for the tests of one file: started (startWarpgateFor) before them, stopped after
 * them. Its `url` is there once the file's tests run.
 */
export function warpgateForThisFile(net: NetworkDescription, extra: Record<string, unknown> = {}): { readonly url: string } {
  let started: Warpgate | undefined;
  beforeAll(async () => {
    started = await startWarpgateFor(net, extra);
  });
  afterAll(async () => {
    await started?.stop();
  });
  return {
    get url(): string {
      if (!started) throw new Error('warpgate is not started: warpgateForThisFile serves only the tests of its file');
      return started.url;
    },
  };
}

export async function rpc<T = any>(url: string, method: string, params: unknown = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export async function pChainHeight(net: NetworkDescription): Promise<number> {
  return Number((await rpc<{ height: string }>(net.pChainUrl, 'platform.getHeight')).height);
}

/** avalanchego's verdict (interop verify): valid, or the error its verification returned. */
export interface Verdict {
  valid: boolean;
  error?: string;
  messageId: string;
  sourceChainId: string;
  subnetId: string;
  height: number;
  signers: number;
  signedWeight: number;
  totalWeight: number;
  /** The NodeIDs of the validators whose bits are set. */
  signerNodeIds: string[];
}

/**
 * Checks a signed message with avalanchego's vms/platformvm/warp against the canonical set of
 * the signing subnet (default: the one that validates the source chain) at a P-Chain height.
 */
export function avalancheVerdict(net: NetworkDescription, signedHex: string, height: number, opts: { subnet?: string; quorum?: number } = {}): Verdict {
  const args = ['verify', '-uri', net.nodes[0]!.uri, '-message', signedHex, '-height', String(height)];
  if (opts.subnet) args.push('-subnet', opts.subnet);
  if (opts.quorum) args.push('-quorum', String(opts.quorum));
  const run = spawnSync(INTEROP_BIN, args, { encoding: 'utf8', timeout: 90_000 });
  if (run.status !== 0 && run.status !== 2) throw new Error(`interop verify failed (${run.status}): ${run.stderr.trim()}`);
  return JSON.parse(run.stdout.trim()) as Verdict;
}

/** The signed message with one byte of its unsigned part changed: its signature no longer matches. */
export function withChangedMessageByte(signedHex: string, unsignedLength: number): string {
  const hex = signedHex.replace(/^0x/, '');
  const at = (unsignedLength - 1) * 2; // the payload's last byte
  const flipped = (parseInt(hex.slice(at, at + 2), 16) ^ 0x01).toString(16).padStart(2, '0');
  return hex.slice(0, at) + flipped + hex.slice(at + 2);
}

/** Runs an `interop` subcommand that prints one JSON line. */
export function interopJson<T>(args: string[]): T {
  const run = spawnSync(INTEROP_BIN, args, { encoding: 'utf8', timeout: 180_000 });
  if (run.status !== 0) throw new Error(`interop ${args[0]} ${args[1] ?? ''} failed (${run.status}): ${run.stderr.trim()}`);
  return JSON.parse(run.stdout.trim()) as T;
}

/** Every node of the network, Primary Network and L1 validators alike, once each. */
function everyNodeUri(net: NetworkDescription): string[] {
  return [...new Set([...net.nodes, ...net.l1.validators].map((n) => n.uri))];
}

/** Polls `ready` every 200 ms until it is true, or throws `what` after 60 s. */
async function within60s(ready: () => Promise<boolean>, what: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(what());
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Waits until every node that runs the EVM chain at /ext/bc/`alias` has accepted block `number`.
 * A validator asked to sign a message from a block it has not accepted yet refuses it (pre-Helicon
 * EVMs answer AppError 2, final), and one L1 validator holds two thirds of the weight: asking
 * before it caught up made an aggregation miss quorum now and then. A relayer meets the same.
 */
export async function acceptedEverywhere(net: NetworkDescription, alias: string, number: bigint): Promise<void> {
  for (const uri of everyNodeUri(net)) {
    let height = -1n;
    await within60s(
      async () => {
        try {
          height = BigInt(await rpc<string>(`${uri}/ext/bc/${alias}/rpc`, 'eth_blockNumber'));
        } catch {
          return true; // this node does not run the chain
        }
        return height >= number;
      },
      () => `${uri} has not accepted block ${number} of ${alias} in 60 s (at ${height})`,
    );
  }
}

/** Waits until every node has committed P-Chain transaction `txId`: before that, a validator refuses to sign what it vouches for. */
export async function committedEverywhere(net: NetworkDescription, txId: string): Promise<void> {
  for (const uri of everyNodeUri(net)) {
    let status = '';
    await within60s(
      async () => {
        status = (await rpc<{ status: string }>(`${uri}/ext/bc/P`, 'platform.getTxStatus', { txID: txId })).status;
        return status === 'Committed';
      },
      () => `${uri} has not committed ${txId} in 60 s (${status})`,
    );
  }
}
