// `warpgate devnet --json` through the real binary, as a user (or a CI script) runs it: one JSON
// line on stdout once ready, a working service behind it (here over avalanchego's own protocol,
// --transport p2p, its signed message checked by `warpgate verify`), and a clean exit 0 on SIGTERM
// that leaves no host processes behind.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNobleBackend } from '../../src/bls/noble-backend.js';
import { PChainClient } from '../../src/node/pchain.js';
import { verifySignedMessage } from '../../src/validators/verify.js';
import { parseCb58Id } from '../../src/warp/cb58.js';
import { bytesToHex, hexToBytes } from '../../src/warp/hex.js';
import { encodeAddressedCall } from '../../src/warp/payload.js';
import { newUnsignedMessage } from '../../src/warp/unsigned-message.js';
import { WARPGATE } from '../source-cli.js';
import { childrenOf } from '../ops/staging.js';


function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie has exited; only its parent has not reaped it yet.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

let child: ChildProcess | undefined;
afterAll(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe('warpgate devnet --json', () => {
  it('prints one JSON line, serves aggregations, and exits 0 on SIGTERM leaving no children', async () => {
    child = spawn(process.execPath, [...WARPGATE, 'devnet', '--json', '--port', '0', '--validators', '6', '--byzantine', '1', '--epoch-height', '122', '--transport', 'p2p'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc = child;
    let stdout = '';
    let stderr = '';
    proc.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    proc.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = once(proc, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;

    const until = Date.now() + 45_000;
    while (!stdout.includes('\n')) {
      if (proc.exitCode !== null) throw new Error(`devnet exited with ${proc.exitCode}: ${stderr.slice(-2000)}`);
      if (Date.now() > until) throw new Error(`no JSON line within 45 s; stderr: ${stderr.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const info = JSON.parse(stdout.slice(0, stdout.indexOf('\n'))) as Record<string, unknown>;
    expect(info).toMatchObject({ networkId: expect.any(Number), validators: 6 });
    for (const key of ['url', 'subnetId', 'blockchainId', 'pchainUrl', 'l1ConversionTxId']) expect(typeof info[key]).toBe('string');
    expect(info.byzantine).toEqual([expect.stringMatching(/^NodeID-/)]);
    // Every validator a simulated avalanchego node, with its address.
    expect(info).toMatchObject({ transport: 'p2p', signers: 0 });
    expect(info.p2p).toHaveLength(6);
    for (const n of info.p2p as Record<string, unknown>[]) expect(n).toEqual({ nodeId: expect.stringMatching(/^NodeID-/), host: '127.0.0.1', port: expect.any(Number) });
    // --port 0 prints the port the service really listens on.
    const url = new URL(info.url as string);
    expect(Number(url.port)).toBeGreaterThan(0);

    const unsigned = newUnsignedMessage(
      info.networkId as number,
      parseCb58Id(info.blockchainId as string),
      encodeAddressedCall(new Uint8Array(20), new TextEncoder().encode('from the cli test')),
    );
    const res = await fetch(`${info.url as string}/v1/signatureAggregator/fuji/aggregateSignatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: bytesToHex(unsigned.bytes) }),
      signal: AbortSignal.timeout(15_000),
    });
    expect(res.status).toBe(201);
    const { signedMessage } = (await res.json()) as { signedMessage: string };
    const entries = await new PChainClient({ nodeBaseUrl: info.pchainUrl as string }).getCurrentValidators(parseCb58Id(info.subnetId as string));
    expect(verifySignedMessage(hexToBytes(signedMessage), entries, 67, info.networkId as number, createNobleBackend()).valid).toBe(true);
    // And as an operator checks it: `warpgate verify` against the set saved from the P-Chain.
    const saved = await fetch(`${info.pchainUrl as string}/ext/bc/P`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'platform.getCurrentValidators', params: { subnetID: info.subnetId } }),
    });
    const dir = mkdtempSync(join(tmpdir(), 'warpgate-devnet-cli-'));
    try {
      const file = join(dir, 'validators.json');
      writeFileSync(file, await saved.text());
      const verify = spawnSync(process.execPath, [...WARPGATE, 'verify', '--message', signedMessage, '--validators', file, '--network-id', String(info.networkId)], { encoding: 'utf8' });
      expect(verify.status, verify.stderr).toBe(0);
      expect(JSON.parse(verify.stdout)).toMatchObject({ valid: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // The destination chain: its base URL, where its ProposerVM reports the epoch --epoch-height set.
    expect(info.destinations).toEqual([{ blockchainId: info.blockchainId, rpcUrl: `${info.pchainUrl as string}/ext/bc/${info.blockchainId as string}` }]);
    const rpcUrl = (info.destinations as { rpcUrl: string }[])[0]!.rpcUrl;
    const epoch = await fetch(`${rpcUrl}/proposervm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'proposervm.getCurrentEpoch', params: {} }),
      signal: AbortSignal.timeout(15_000),
    });
    expect(((await epoch.json()) as { result: unknown }).result).toMatchObject({ number: '1', pChainHeight: '122' });
    const toChain = await fetch(`${info.url as string}/aggregate-signatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: bytesToHex(unsigned.bytes), 'destination-blockchain-id': info.blockchainId }),
      signal: AbortSignal.timeout(15_000),
    });
    expect(toChain.status).toBe(200);
    expect(toChain.headers.get('x-warpgate-pchain-height')).toBe('122');

    const hosts = childrenOf(proc.pid!);
    expect(hosts.length).toBeGreaterThan(0);
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    const [code, signal] = await exited;
    clearTimeout(timer);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stdout.trim().split('\n')).toHaveLength(1);
    const deadline = Date.now() + 5_000;
    while (hosts.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(hosts.filter(alive)).toEqual([]);
  }, 90_000);

  it('refuses --io-shards outside the config schema\'s range with exit 2', () => {
    const run = spawnSync(process.execPath, [...WARPGATE, 'devnet', '--io-shards', '65'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--io-shards must be an integer from 0 to 64, got '65'/);
  });

  it('refuses a transport it does not know with exit 2, naming the choices', () => {
    const run = spawnSync(process.execPath, [...WARPGATE, 'devnet', '--transport', 'udp'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--transport must be one of ws, p2p, mixed, got 'udp'/);
  });
});
