import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { idToString } from '../../src/warp/cb58.js';
import { bytesTo0xHex, hexToBytes } from '../../src/warp/hex.js';
import { CloseCode } from '../../src/peers/frames.js';
import { fakeNode } from './fake-node.js';
import { RawService } from './raw-service.js';
import { WARPGATE } from '../source-cli.js';
import { CHAIN_A, Closer, NETWORK_ID, bls, httpServer, message, once, pool, verifies } from '../peers/helpers.js';

const closer = new Closer();
afterEach(() => closer.closeAll());

let dir: string;
let keyPath: string;
let publicKeyHex: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warpgate-signer-cli-'));
  const sk = bls.generateSecretKey();
  keyPath = join(dir, 'signer.key');
  await writeFile(keyPath, sk.bytes, { mode: 0o600 });
  publicKeyHex = Buffer.from(bls.publicKeyOf(sk).bytes).toString('hex');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

interface Run {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function start(args: string[]): Run {
  const child = spawn(process.execPath, [...WARPGATE, 'signer', ...args], { stdio: 'pipe' });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Never leave a child behind, whatever the test did.
  closer.add(child, async (c) => {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await exit;
    }
  });
  return { child, stdout: () => out, stderr: () => err, exit };
}

async function readyLine(run: Run, ms = 15_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + ms;
  for (;;) {
    for (const line of run.stdout().split('\n')) {
      if (line.includes('"signer ready"')) return JSON.parse(line) as Record<string, unknown>;
    }
    if (run.child.exitCode !== null) throw new Error(`signer exited ${run.child.exitCode}: ${run.stderr()}`);
    if (Date.now() > deadline) throw new Error(`no ready line within ${ms} ms; stderr: ${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function exitWithin(run: Run, ms = 10_000): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([run.exit, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('did not exit')), ms)))]);
  clearTimeout(timer);
  return code;
}

const P_CHAIN_CB58 = '11111111111111111111111111111111LpoYY';
const policyFlags = () => ['--network-id', String(NETWORK_ID), '--allow-source-chain', idToString(CHAIN_A)];

describe('warpgate signer', () => {
  it('listens, handshakes with a PeerPool, signs, and exits 0 on SIGTERM', async () => {
    const run = start(['--key', keyPath, '--listen', '0', ...policyFlags()]);
    const ready = await readyLine(run);
    expect(ready.publicKey).toBe(publicKeyHex);
    expect(ready.port).toBeTypeOf('number');

    const p = pool(closer, { dial: [{ url: `ws://127.0.0.1:${ready.port as number}` }] });
    const up = once<[string]>(p, 'connected', 10_000);
    p.start();
    expect((await up)[0]).toBe(publicKeyHex);
    const m = message('from the cli');
    const answer = await p.request(publicKeyHex, { message: m.bytes, justification: new Uint8Array() });
    expect(answer.kind).toBe('signature');
    if (answer.kind === 'signature') expect(verifies(hexToBytes(publicKeyHex), m.bytes, answer.signature)).toBe(true);
    const refused = await p.request(publicKeyHex, { message: message('x', { networkId: 1 }).bytes, justification: new Uint8Array() });
    expect(refused.kind).toBe('refused');

    run.child.kill('SIGTERM');
    expect(await exitWithin(run)).toBe(0);
    expect(run.stderr()).toBe('');
  });

  it('dials the service with --connect and a policy file', async () => {
    const policyPath = join(dir, 'policy.json');
    await writeFile(policyPath, JSON.stringify({ networkId: NETWORK_ID, allowedSourceChains: [idToString(CHAIN_A)] }));
    const { server, port } = await httpServer(closer);
    const p = pool(closer);
    p.attach(server);
    const up = once<[string]>(p, 'connected', 15_000);
    const run = start(['--key', keyPath, '--connect', `ws://127.0.0.1:${port}/v1/peers`, '--policy', policyPath]);
    expect((await up)[0]).toBe(publicKeyHex);
    const answer = await p.request(publicKeyHex, { message: message('dialed').bytes, justification: new Uint8Array() });
    expect(answer.kind).toBe('signature');
    run.child.kill('SIGINT');
    expect(await exitWithin(run)).toBe(0);
  });

  it('with --node lets the node decide and sign, without a policy', async () => {
    const sk = bls.secretKeyFromBytes(await readFile(keyPath));
    const signable = message('accepted by the node');
    const node = await fakeNode(closer, (call) =>
      call.params[0] === idToString(signable.id)
        ? { result: bytesTo0xHex(bls.sign(sk, signable.bytes).bytes) }
        : { error: { code: -32000, message: 'message not found' } },
    );
    const run = start(['--key', keyPath, '--listen', '0', '--node', node.url]);
    const ready = await readyLine(run);
    expect(ready.backend).toBe('node');
    const p = pool(closer, { dial: [{ url: `ws://127.0.0.1:${ready.port as number}` }] });
    const up = once(p, 'connected', 10_000);
    p.start();
    await up;
    const answer = await p.request(publicKeyHex, { message: signable.bytes, justification: new Uint8Array() });
    expect(answer.kind).toBe('signature');
    if (answer.kind === 'signature') expect(verifies(hexToBytes(publicKeyHex), signable.bytes, answer.signature)).toBe(true);
    const refused = await p.request(publicKeyHex, { message: message('unknown').bytes, justification: new Uint8Array() });
    expect(refused).toMatchObject({ kind: 'refused', reason: expect.stringContaining('message not found') });
    run.child.kill('SIGTERM');
    expect(await exitWithin(run)).toBe(0);
  });

  it("remembers what the node confirmed, and asks again about what it did not", async () => {
    const confirmed = message('accepted by the node');
    const node = await fakeNode(closer, (call) =>
      call.params[0] === idToString(confirmed.id) ? { result: bytesTo0xHex(confirmed.bytes) } : { error: { code: -32000, message: 'message not found' } },
    );
    const policyPath = join(dir, 'confirm-policy.json');
    await writeFile(policyPath, JSON.stringify({ networkId: NETWORK_ID, allowedSourceChains: [idToString(CHAIN_A)], confirmWithNode: node.url }));
    const run = start(['--key', keyPath, '--listen', '0', '--policy', policyPath]);
    const ready = await readyLine(run);
    const p = pool(closer, { dial: [{ url: `ws://127.0.0.1:${ready.port as number}` }] });
    const up = once(p, 'connected', 10_000);
    p.start();
    await up;
    const unknown = message('not accepted yet');
    for (let i = 0; i < 3; i++) {
      expect((await p.request(publicKeyHex, { message: confirmed.bytes, justification: new Uint8Array() })).kind).toBe('signature');
      expect(await p.request(publicKeyHex, { message: unknown.bytes, justification: new Uint8Array() })).toMatchObject({ kind: 'refused' });
    }
    const asked = (m: typeof confirmed): number => node.calls.filter((c) => c.params[0] === idToString(m.id)).length;
    expect([asked(confirmed), asked(unknown)]).toEqual([1, 3]);
    run.child.kill('SIGTERM');
    expect(await exitWithin(run)).toBe(0);
  });

  it('takes its limits from flags: past --max-handshakes-per-second (bursts of twice that) a connection is closed with 4008', async () => {
    const run = start(['--key', keyPath, '--listen', '0', ...policyFlags(), '--max-handshakes-per-second', '1', '--verdict-cache-size', '0']);
    const ready = await readyLine(run);
    expect(ready.limits).toMatchObject({
      requests: { rate: { perSecond: 1000, burst: 2000 }, maxConcurrent: 256 },
      maxConnections: 64,
      inbound: { handshakeRate: { perSecond: 1, burst: 2 }, handshakeRatePerAddress: { perSecond: 2, burst: 4 }, maxConnectionsPerAddress: 8 },
      verdictCache: { maxEntries: 0, ttlMs: 600_000 },
    });
    const url = `ws://127.0.0.1:${ready.port as number}`;
    const hellos: (number | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      const r = closer.add(await RawService.dial(url), (c) => c.close());
      r.challenge();
      hellos.push((await r.next('hello')) ? 0 : r.closeCode);
    }
    expect(hellos).toEqual([0, 0, CloseCode.full]);
    run.child.kill('SIGTERM');
    expect(await exitWithin(run)).toBe(0);
  });

  it.each([
    ['a limit out of range', () => ['--key', keyPath, '--listen', '0', ...policyFlags(), '--max-concurrent-requests', '0'],
      /^warpgate: signer: --max-concurrent-requests must be an integer from 1 to 100000, got '0'/, 2],
    ['no policy', () => ['--key', keyPath, '--listen', '0'], /policy is required/, 2],
    ['a key file of the wrong size', async () => {
      const bad = join(dir, 'bad.key');
      await writeFile(bad, new Uint8Array(31));
      return ['--key', bad, '--listen', '0', ...policyFlags()];
    }, /bad\.key: must hold exactly 32 raw bytes/, 1],
    ['a missing key file', () => ['--key', join(dir, 'absent.key'), '--listen', '0', ...policyFlags()], /absent\.key: does not exist/, 1],
    ['neither --listen nor --connect', () => ['--key', keyPath, ...policyFlags()], /--listen PORT or --connect URL/, 2],
    ['a bad policy file', async () => {
      const bad = join(dir, 'bad-policy.json');
      await writeFile(bad, JSON.stringify({ networkId: 1, allowedSourceChains: ['x'], extra: 1 }));
      return ['--key', keyPath, '--listen', '0', '--policy', bad];
    }, /bad-policy\.json: unknown key "extra"/, 1],
    ['the P-Chain as an --allow-source-chain', () => ['--key', keyPath, '--listen', '0', '--network-id', String(NETWORK_ID), '--allow-source-chain', P_CHAIN_CB58],
      /^warpgate: signer: --allow-source-chain: the P-Chain \(11111111111111111111111111111111LpoYY\) cannot be an allowed source chain: .*"pchainNode"/, 2],
    ['a policy file listing the P-Chain without pchainNode', async () => {
      const bad = join(dir, 'pchain-policy.json');
      await writeFile(bad, JSON.stringify({ networkId: NETWORK_ID, allowedSourceChains: [idToString(CHAIN_A), P_CHAIN_CB58] }));
      return ['--key', keyPath, '--listen', '0', '--policy', bad];
    }, /pchain-policy\.json: "allowedSourceChains"\[1\]: the P-Chain \(11111111111111111111111111111111LpoYY\) cannot be an allowed source chain: .*set "pchainNode"/, 1],
  ])('fails with %s: exit code, one stderr line', async (_name, args, pattern, code) => {
    const run = start(await args());
    expect(await exitWithin(run, 15_000)).toBe(code);
    const lines = run.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
    expect(run.stdout()).toBe('');
  });
});
