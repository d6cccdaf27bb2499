// A byzantine devnet end to end over both transports (the default, mixed): 12 validators, 5 of
// them misbehaving in every way a validator can (invalid signature, someone else's signature,
// silence, garbage, disconnecting mid-request), signer peers and simulated avalanchego nodes
// alike. Within the honest margin the service still signs; beyond it (a quorum the honest stake
// cannot meet, or host processes killed) it answers 503 with the counts, within the deadline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { createNobleBackend } from '../../src/bls/noble-backend.js';
import { PChainClient } from '../../src/node/pchain.js';
import { verifySignedMessage } from '../../src/validators/verify.js';
import { parseCb58Id } from '../../src/warp/cb58.js';
import { hexToBytes } from '../../src/warp/hex.js';

const noble = createNobleBackend();
const DEADLINE_MS = 2_000;
let devnet: Devnet;
let pchain: PChainClient;

beforeAll(async () => {
  devnet = await startDevnet({
    validators: 12,
    byzantine: 5,
    port: 0,
    logger: pino({ level: 'silent' }),
    configOverrides: { 'aggregation.deadlineMs': DEADLINE_MS, 'aggregation.requestTimeoutMs': 1_500 },
  });
  pchain = new PChainClient({ nodeBaseUrl: devnet.node.url });
});
afterAll(async () => {
  await devnet?.close();
});

async function aggregate(text: string, body: Record<string, unknown> = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${devnet.info.url}/v1/signatureAggregator/fuji/aggregateSignatures`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: devnet.exampleMessageHex(text), ...body }),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function verifies(signedHex: unknown, quorum: number): Promise<boolean> {
  const entries = await pchain.getCurrentValidators(parseCb58Id(devnet.info.subnetId));
  const v = verifySignedMessage(hexToBytes(signedHex as string), entries, quorum, devnet.info.networkId, noble);
  if (!v.valid) throw new Error(`signed message does not verify at ${quorum}: ${v.reason}`);
  return true;
}

describe('a byzantine devnet', () => {
  it('describes itself: every fault mode present, the honest validators above 80% of the weight', () => {
    expect(devnet.info.byzantine).toHaveLength(5);
    const faults = new Set(devnet.genesis.validators.map((v) => v.fault).filter(Boolean));
    expect(faults).toEqual(new Set(['invalid-signature', 'wrong-key', 'silent', 'garbage', 'disconnect']));
    expect(devnet.genesis.honestWeight * 100n > devnet.genesis.totalWeight * 80n).toBe(true);
  });

  it('signs at 67 despite the byzantine signers', async () => {
    const { status, json } = await aggregate('byzantine 67');
    expect(status).toBe(201);
    expect(await verifies(json.signedMessage, 67)).toBe(true);
  });

  it('signs at 80, which needs every honest signer, so the byzantine ones are asked too', async () => {
    const { status, json } = await aggregate('byzantine 80', { quorumPercentage: 67, quorumPercentageBuffer: 13 });
    expect(status).toBe(201);
    expect(await verifies(json.signedMessage, 80)).toBe(true);
  });

  it('a quorum the honest stake cannot meet is a 503 within the deadline, with the counts', async () => {
    const { status, json } = await aggregate('out of reach', { quorumPercentage: 100 });
    // 503, not the 504 the service answers once its deadline has passed: it gave up in time.
    expect(status).toBe(503);
    expect(json.message).toMatch(/quorum not reached .*: signed weight \d+ of \d+ .*required \d+; validators \d+: asked \d+, answered \d+, refused \d+, timed out \d+, invalid signatures \d+, failed \d+, not connected \d+/);
    // Everyone reachable was asked: the invalid-signature and wrong-key signers show up as
    // invalid, the silent one as timed out.
    expect(json.message).toMatch(/timed out [1-9]\d*, invalid signatures [2-9]/);
  });

  it('byzantine validators are on both transports', () => {
    const byzantine = devnet.genesis.validators.filter((v) => v.fault);
    expect(byzantine.some((v) => v.staking)).toBe(true);
    expect(byzantine.some((v) => !v.staking)).toBe(true);
  });

  it('with a signer host and an avalanchego host killed, too little honest weight is connected: 503 naming not-connected validators', async () => {
    const connected = (): number => devnet.service.peers.connectedKeys().length + devnet.service.p2p!.connectedCount();
    const before = connected();
    // Killed for good: the devnet would otherwise restart them (test/devnet/supervision.test.ts).
    await devnet.stopSignerHost(0);
    await devnet.stopNodeHost(0);
    const until = Date.now() + 10_000;
    while (connected() >= before - 4 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    const { status, json } = await aggregate('half the stake gone');
    // 503, not the 504 the service answers once its deadline has passed: it gave up in time.
    expect(status).toBe(503);
    expect(json.message).toMatch(/not connected [1-9]/);
  });
});
