// Both aggregation endpoints end to end on one devnet: a real simulated P-Chain node, signer
// peers in child processes, the service over real HTTP. Every signed message is verified with
// verifySignedMessage under the noble backend (the service aggregates with blst) against the
// validator set the node reports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { createNobleBackend } from '../../src/bls/noble-backend.js';
import { PChainClient } from '../../src/node/pchain.js';
import type { ValidatorEntry } from '../../src/validators/canonical-set.js';
import { verifySignedMessage, type VerifyResult } from '../../src/validators/verify.js';
import { parseCb58Id } from '../../src/warp/cb58.js';
import { bytesToHex, concatBytes, hexToBytes } from '../../src/warp/hex.js';
import { newUnsignedMessage } from '../../src/warp/unsigned-message.js';
import { encodeAddressedCall } from '../../src/warp/payload.js';

const noble = createNobleBackend();
const DEADLINE_MS = 3_000;
let devnet: Devnet;
let pchain: PChainClient;
let subnetId: Uint8Array;

beforeAll(async () => {
  devnet = await startDevnet({
    validators: 8,
    port: 0,
    logger: pino({ level: 'silent' }),
    configOverrides: { 'aggregation.deadlineMs': DEADLINE_MS, 'validatorSets.nodeTimeoutMs': 1_000 },
  });
  pchain = new PChainClient({ nodeBaseUrl: devnet.node.url, timeoutMs: 5_000 });
  subnetId = parseCb58Id(devnet.info.subnetId);
});
afterAll(async () => {
  await devnet?.close();
});

const glacier = (network = 'fuji'): string => `${devnet.info.url}/v1/signatureAggregator/${network}/aggregateSignatures`;
const icm = (): string => `${devnet.info.url}/aggregate-signatures`;

async function post(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`status ${res.status}, not JSON: ${text.slice(0, 200)}`);
  }
  return { status: res.status, json };
}

async function verify(signedHex: unknown, quorum = 67, entries?: ValidatorEntry[]): Promise<VerifyResult> {
  expect(typeof signedHex).toBe('string');
  const set = entries ?? (await pchain.getCurrentValidators(subnetId));
  return verifySignedMessage(hexToBytes(signedHex as string), set, quorum, devnet.info.networkId, noble);
}

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${devnet.info.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

async function signatureResponses(): Promise<number> {
  let sum = 0;
  for (const r of ['valid', 'invalid', 'refused', 'timeout', 'error']) sum += await metric('warpgate_signature_responses_total', `result="${r}"`);
  return sum;
}

describe('Glacier: POST /v1/signatureAggregator/{network}/aggregateSignatures', () => {
  it('201 {signedMessage} that the noble backend verifies at 67', async () => {
    const { status, json } = await post(glacier(), { message: devnet.exampleMessageHex('glacier 67') });
    expect(status).toBe(201);
    expect(Object.keys(json)).toEqual(['signedMessage']);
    const v = await verify(json.signedMessage);
    expect(v.reason).toBeUndefined();
    expect(v.valid).toBe(true);
  });

  it('with quorumPercentageBuffer the signed weight reaches quorum + buffer', async () => {
    const { status, json } = await post(glacier(), {
      message: `0x${devnet.exampleMessageHex('glacier buffer')}`,
      quorumPercentage: 67,
      quorumPercentageBuffer: 20,
    });
    expect(status).toBe(201);
    expect((await verify(json.signedMessage, 87)).valid).toBe(true);
  });

  it('accepts SendWarpMessage log data as the message', async () => {
    const unsigned = hexToBytes(devnet.exampleMessageHex('from a log'));
    const word = (n: number): Uint8Array => {
      const w = new Uint8Array(32);
      new DataView(w.buffer).setUint32(28, n);
      return w;
    };
    const logData = concatBytes(word(32), word(unsigned.length), unsigned, new Uint8Array((32 - (unsigned.length % 32)) % 32));
    const { status, json } = await post(glacier(), { message: bytesToHex(logData) });
    expect(status).toBe(201);
    const v = await verify(json.signedMessage);
    expect(v.valid).toBe(true);
    expect((json.signedMessage as string).startsWith(bytesToHex(unsigned))).toBe(true);
  });

  it('a non-zero pChainHeight uses platform.getValidatorsAt and signs with that height’s set', async () => {
    const height = devnet.genesis.heights.registration - 1;
    const before = devnet.node.calls.length;
    const { status, json } = await post(glacier(), { message: devnet.exampleMessageHex('at a height'), pChainHeight: height });
    expect(status).toBe(201);
    const calls = devnet.node.calls.slice(before);
    expect(calls.some((c) => c.method === 'platform.getValidatorsAt' && JSON.stringify(c.params).includes(String(height)))).toBe(true);
    const atHeight = await pchain.getValidatorsAt(height, subnetId);
    const current = await pchain.getCurrentValidators(subnetId);
    expect(atHeight.length).toBeLessThan(current.length);
    expect((await verify(json.signedMessage, 67, atHeight)).valid).toBe(true);
  });

  it('a repeat request is served from the signature cache without a peer request', async () => {
    const body = { message: devnet.exampleMessageHex('twice') };
    const first = await post(glacier(), body);
    expect(first.status).toBe(201);
    const responses = await signatureResponses();
    const hits = await metric('warpgate_signature_cache_total', 'result="hit"');
    const second = await post(glacier(), body);
    expect(second.status).toBe(201);
    expect(await signatureResponses()).toBe(responses);
    expect(await metric('warpgate_signature_cache_total', 'result="hit"')).toBe(hits + 1);
    expect((await verify(second.json.signedMessage)).valid).toBe(true);
  });

  it('a local network answers under any network name', async () => {
    const { status, json } = await post(glacier('mainnet'), { message: devnet.exampleMessageHex('on mainnet path') });
    expect(status).toBe(201);
    expect((await verify(json.signedMessage)).valid).toBe(true);
  });
});

describe('icm-services: POST /aggregate-signatures', () => {
  it('200 {"signed-message"} with kebab-case fields and pchain-height', async () => {
    const { status, json } = await post(icm(), {
      message: devnet.exampleMessageHex('icm'),
      'signing-subnet-id': devnet.info.subnetId,
      'quorum-percentage': 67,
      'quorum-percentage-buffer': 5,
      'pchain-height': 0,
    });
    expect(status).toBe(200);
    expect(Object.keys(json)).toEqual(['signed-message']);
    expect((await verify(json['signed-message'], 72)).valid).toBe(true);
  });

  it('accepts p-chain-height as its README spells it', async () => {
    // Another height than the Glacier test's, so the set is not in the cache yet.
    const height = devnet.genesis.heights.bulkRegistration;
    const before = devnet.node.calls.length;
    const { status, json } = await post(icm(), { message: devnet.exampleMessageHex('icm height'), 'p-chain-height': height });
    expect(status).toBe(200);
    expect(devnet.node.calls.slice(before).some((c) => c.method === 'platform.getValidatorsAt')).toBe(true);
    expect((await verify(json['signed-message'], 67, await pchain.getValidatorsAt(height, subnetId))).valid).toBe(true);
  });

  it('reads quorum-percentage 0 as icm-services does: the default 67', async () => {
    const { status, json } = await post(icm(), { message: devnet.exampleMessageHex('icm zero'), 'quorum-percentage': 0 });
    expect(status).toBe(200);
    expect((await verify(json['signed-message'], 67)).valid).toBe(true);
  });

  it('answers errors as {error}', async () => {
    const { status, json } = await post(icm(), { message: 'zz', 'quorum-percentage': 67 });
    expect(status).toBe(400);
    expect(Object.keys(json)).toEqual(['error']);
    expect(json.error).toMatch(/^message: /);
  });
});

describe('client mistakes are 4xx naming the field, never 500', () => {
  const message = (): string => devnet.exampleMessageHex('mistakes');
  const foreign = (): string =>
    bytesToHex(newUnsignedMessage(1, devnet.genesis.blockchainId, encodeAddressedCall(devnet.genesis.managerAddress, new TextEncoder().encode('x'))).bytes);
  const cases: [name: string, body: () => unknown, field: RegExp, network?: string][] = [
    ['malformed JSON', () => '{"message": ', /^body: malformed JSON/],
    ['a body that is not an object', () => '[1,2]', /^body: /],
    ['no message', () => ({ quorumPercentage: 67 }), /^message: /],
    ['message of the wrong type', () => ({ message: 42 }), /^message: must be a hex string/],
    ['bad hex', () => ({ message: '0xabcg' }), /^message: .*hex/],
    ['odd-length hex', () => ({ message: 'abc' }), /^message: .*odd/],
    ['unparseable message', () => ({ message: 'deadbeef' }), /^message: /],
    ['quorum as a string', () => ({ message: message(), quorumPercentage: '67' }), /^quorumPercentage: must be an integer/],
    ['quorum out of range', () => ({ message: message(), quorumPercentage: 101 }), /^quorumPercentage: must be from 0 to 100/],
    ['negative buffer', () => ({ message: message(), quorumPercentageBuffer: -1 }), /^quorumPercentageBuffer: /],
    ['quorum + buffer over 100', () => ({ message: message(), quorumPercentage: 90, quorumPercentageBuffer: 20 }), /^quorumPercentageBuffer: .*at most 100/],
    ['fractional pChainHeight', () => ({ message: message(), pChainHeight: 1.5 }), /^pChainHeight: /],
    ['negative pChainHeight', () => ({ message: message(), pChainHeight: -1 }), /^pChainHeight: /],
    ['bad justification hex', () => ({ message: message(), justification: '0xq' }), /^justification: /],
    ['bad subnet id', () => ({ message: message(), signingSubnetId: 'not-a-subnet' }), /^signingSubnetId: /],
    ['bad destination id', () => ({ message: message(), destinationBlockchainId: 'nowhere' }), /^destinationBlockchainId: /],
    ['a timeoutMs of 0', () => ({ message: message(), timeoutMs: 0 }), /^timeoutMs: must be a positive number of milliseconds/],
    ['subnet id of the wrong type', () => ({ message: message(), signingSubnetId: 7 }), /^signingSubnetId: /],
    ['unknown network', () => ({ message: message() }), /^network: /, 'moon'],
    ['a network 1 message on fuji', () => ({ message: foreign() }), /^network: .*network ID 1/, 'fuji'],
  ];
  for (const [name, body, field, network] of cases) {
    it(name, async () => {
      const { status, json } = await post(glacier(network), body());
      expect(status).toBe(400);
      expect(json).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(json.message).toMatch(field);
    });
  }

  it('a body over the limit is 413 in both dialects', async () => {
    const big = { message: 'ab'.repeat(300_000) };
    const g = await post(glacier(), big);
    expect(g.status).toBe(413);
    expect(g.json).toMatchObject({ statusCode: 413 });
    const i = await post(icm(), big);
    expect(i.status).toBe(413);
    expect(Object.keys(i.json)).toEqual(['error']);
  });

  it('icm-services mistakes name the kebab-case field', async () => {
    const { status, json } = await post(icm(), { message: message(), 'quorum-percentage': 67, 'quorum-percentage-buffer': 40 });
    expect(status).toBe(400);
    expect(json.error).toMatch(/^quorum-percentage-buffer: /);
    const h = await post(icm(), { message: message(), 'pchain-height': 'tall' });
    expect(h.status).toBe(400);
    expect(h.json.error).toMatch(/^pchain-height: /);
  });
});

describe('a client’s own timeout (timeoutMs / timeout-ms)', () => {
  // 1 ms is too short for any aggregation (a pairing alone takes longer): the request ends at that
  // deadline, as a 504 naming it, or as the 503 of a collection cut short by it.
  const endedByTheDeadline = /^the aggregation deadline of 1 ms passed while |^quorum not reached by the deadline: /;

  it('shortens the deadline from the request’s arrival, in either dialect', async () => {
    const g = await post(glacier(), { message: devnet.exampleMessageHex('no time at all'), timeoutMs: 1 });
    expect([503, 504]).toContain(g.status);
    expect(g.json.message).toMatch(endedByTheDeadline);
    const i = await post(icm(), { message: devnet.exampleMessageHex('no time either'), 'timeout-ms': 1 });
    expect([503, 504]).toContain(i.status);
    expect(i.json.error).toMatch(endedByTheDeadline);
  });

  it('never lengthens it: a longer one is cut to aggregation.deadlineMs', async () => {
    const { status, json } = await post(glacier(), { message: devnet.exampleMessageHex('all the time'), timeoutMs: 3_600_000 });
    expect(status).toBe(201);
    expect((await verify(json.signedMessage)).valid).toBe(true);
  });
});

describe('the node down', () => {
  it('502/503/504 naming the node call when the validator set cannot be read', async () => {
    // A height nobody asked for yet, so the set is not cached.
    const height = devnet.genesis.heights.conversion;
    devnet.node.setFault('down');
    try {
      // Answered by the failed node call, not left to the aggregation deadline (the test's own
      // timeout bounds the wait).
      const { status, json } = await post(glacier(), {
        message: devnet.exampleMessageHex('node down'),
        signingSubnetId: devnet.info.subnetId,
        pChainHeight: height,
      });
      expect([502, 503, 504]).toContain(status);
      expect(json.message).toMatch(/P-Chain node call platform\.getValidatorsAt failed/);
    } finally {
      devnet.node.setFault(null);
    }
    const again = await post(glacier(), { message: devnet.exampleMessageHex('node back'), pChainHeight: height });
    expect(again.status).toBe(201);
  });
});
