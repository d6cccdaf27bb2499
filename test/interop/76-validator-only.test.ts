// A validatorOnly L1: a second L1 (`interop validator-only-l1`, one validator) whose subnet
// configuration admits requests to its chain only from its validators and its allowedNodes
// (subnets/subnet.go IsAllowed; the chain router drops anything else without an answer).
// warpgate with a throwaway NodeID is connected but every request goes unanswered: the 503 and
// /ready say why and what to do. warpgate with p2p.tlsCertFile pinned to a NodeID in the L1's
// allowedNodes gets the L1's signature, which avalanchego accepts.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bytesToHex, encodeHashPayload, hexToBytes, newUnsignedMessage, parseCb58Id } from '../../src/warp/index.js';
import { postJson, request } from '../ops/helpers.js';
import { WARPGATE } from '../source-cli.js';
import { avalancheVerdict, PRIMARY_NETWORK_ID, rpc, startWarpgateFor, type Warpgate } from './helpers.js';
import { INTEROP_BIN, REPO } from './paths.js';

const net = inject('interopNetwork');

interface ValidatorOnlyL1 {
  subnetId: string;
  blockchainId: string;
  rpcUrl: string;
  allowedNodes: string[];
  validators: { nodeId: string; uri: string; stakingAddress: string }[];
}

let l1: ValidatorOnlyL1;
let harness: ChildProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), 'warpgate-interop-pinned-'));
let pinnedNodeId: string;
const running: Warpgate[] = [];

/** `warpgate keygen --staking DIR`, then the NodeID `warpgate identity` reads from its certificate. */
function pinnedIdentity(): string {
  const keygen = spawnSync(process.execPath, [...WARPGATE, 'keygen', '--staking', dir], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  if (keygen.status !== 0) throw new Error(`warpgate keygen failed: ${keygen.stderr}`);
  const identity = spawnSync(process.execPath, [...WARPGATE, 'identity', '--tls-cert', join(dir, 'staker.crt')], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  if (identity.status !== 0) throw new Error(`warpgate identity failed: ${identity.stderr}`);
  return (JSON.parse(identity.stdout) as { nodeId: string }).nodeId;
}

function startL1(allowed: string): Promise<ValidatorOnlyL1> {
  harness = spawn(INTEROP_BIN, ['validator-only-l1', '-network-dir', net.networkDir, '-allowed-nodes', allowed], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  harness.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-4000)));
  return new Promise((resolve, reject) => {
    let out = '';
    harness!.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as ValidatorOnlyL1);
    });
    harness!.once('exit', (code) => reject(new Error(`interop validator-only-l1 exited (${code}):\n${stderr}`)));
  });
}

async function withWarpgate(extra: Record<string, unknown>): Promise<Warpgate> {
  const w = await startWarpgateFor(net, { readiness: { subnets: [PRIMARY_NETWORK_ID, l1.subnetId] }, ...extra });
  running.push(w);
  return w;
}

async function l1Message(): Promise<string> {
  const block = await rpc<{ hash: string }>(l1.rpcUrl, 'eth_getBlockByNumber', ['latest', false]);
  return bytesToHex(newUnsignedMessage(net.networkId, parseCb58Id(l1.blockchainId), encodeHashPayload(hexToBytes(block.hash))).bytes);
}

beforeAll(async () => {
  pinnedNodeId = pinnedIdentity();
  l1 = await startL1(pinnedNodeId);
}, 10 * 60_000);

afterAll(async () => {
  for (const w of running) await w.stop();
  if (harness && harness.exitCode === null) {
    const exited = new Promise((r) => harness!.once('exit', r));
    harness.kill('SIGTERM'); // stops the L1's node and removes its directory
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
}, 5 * 60_000);

describe('a validatorOnly L1', () => {
  it('leaves a throwaway NodeID unanswered, and warpgate says why and what to do', async () => {
    const warpgate = await withWarpgate({ aggregation: { requestTimeoutMs: 2_000, deadlineMs: 6_000 } });
    const ready = await request(`${warpgate.url}/ready`);
    expect(ready.body.peers.p2p.nodeId).not.toBe(pinnedNodeId);
    const message = await l1Message();
    let res;
    for (let i = 0; i < 3; i++) {
      res = await postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message });
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      // Connected, asked, never answered.
      expect(JSON.stringify(res.body)).toMatch(/validators 1: asked 1, answered 0, refused 0, timed out 1/);
    }
    const text = JSON.stringify(res!.body);
    expect(text).toContain('allowedNodes');
    expect(text).toContain("pin warpgate's NodeID (p2p.tlsCertFile");
    const silent = (await request(`${warpgate.url}/ready`)).body.peers.silent as { nodeId: string; chainId: string; reason: string }[];
    expect(silent, JSON.stringify(silent)).toHaveLength(1);
    expect(silent[0]).toMatchObject({ nodeId: l1.validators[0]!.nodeId, chainId: l1.blockchainId });
    expect(silent[0]!.reason).toContain('validatorOnly');
  });

  it('signs for a warpgate pinned (p2p.tlsCertFile) to a NodeID in its allowedNodes, and avalanchego accepts it', async () => {
    const warpgate = await withWarpgate({ p2p: { enabled: true, tlsCertFile: join(dir, 'staker.crt'), tlsKeyFile: join(dir, 'staker.key') } });
    expect((await request(`${warpgate.url}/ready`)).body.peers.p2p.nodeId).toBe(pinnedNodeId);
    const res = await postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: await l1Message() });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const verdict = avalancheVerdict(net, res.body.signedMessage, Number(res.headers.get('x-warpgate-pchain-height')));
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true, subnetId: l1.subnetId, signers: 1 });
  });
});
