// Signed P-Chain L1 messages end to end through a real devnet (simulated P-Chain node, signer
// processes applying the P-Chain policy, the service): GET aggregateSignatures/{txHash} for each
// transaction kind, justification-only POSTs in both dialects, refusals, and every error case in
// the Data API's error shape.
import { sha256 } from '@noble/hashes/sha2.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENESIS_TIME, l1EntriesAt } from '../../src/devnet/genesis/index.js';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { conversionDataFromTxJson } from '../../src/l1/tx-json.js';
import { PChainClient } from '../../src/node/pchain.js';
import type { ValidatorEntry } from '../../src/validators/canonical-set.js';
import { verifySignedMessage } from '../../src/validators/verify.js';
import {
  bytesToHex,
  cb58Encode,
  conversionId,
  encodeL1Message,
  encodeL1ValidatorRegistrationJustification,
  hexToBytes,
  newPChainMessage,
  parsePChainMessage,
  parseSignedMessage,
  validationIdFromIndex,
  type L1Message,
} from '../../src/warp/index.js';

const DEADLINE_MS = 15_000;
let devnet: Devnet;
let l1Set: ValidatorEntry[];

beforeAll(async () => {
  devnet = await startDevnet({ validators: 6, seed: 'l1-endpoint-test', port: 0, logger: pino({ level: 'silent' }) });
  l1Set = l1EntriesAt(devnet.genesis.l1Validators, devnet.genesis.proposedHeight);
});
afterAll(async () => {
  await devnet?.close();
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function get(path: string): Promise<Answer> {
  const res = await fetch(`${devnet.info.url}${path}`, { signal: AbortSignal.timeout(DEADLINE_MS) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function post(path: string, body: unknown): Promise<Answer> {
  const res = await fetch(`${devnet.info.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(DEADLINE_MS),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const txPath = (txHash: string, query = ''): string => `/v1/signatureAggregator/fuji/aggregateSignatures/${txHash}${query}`;
const POST_PATH = '/v1/signatureAggregator/fuji/aggregateSignatures';

/** The signed message verifies against the L1's set at 67% and carries `expected`. */
function expectSignedL1Message(signedHex: unknown, expected: L1Message): void {
  expect(typeof signedHex).toBe('string');
  const signed = parseSignedMessage(hexToBytes(signedHex as string));
  const verdict = verifySignedMessage(signed, l1Set, 67, devnet.genesis.networkId);
  expect(verdict.reason).toBeUndefined();
  expect(verdict.valid).toBe(true);
  expect(parsePChainMessage(signed.unsigned)).toEqual(expected);
}

function dataApiError(status: number, message: string | RegExp): Record<string, unknown> {
  const error = { 400: 'Bad Request', 404: 'Not Found', 503: 'Service Unavailable' }[status];
  return { message: typeof message === 'string' ? message : expect.stringMatching(message), statusCode: status, error };
}

describe('GET aggregateSignatures/{txHash}', () => {
  it('ConvertSubnetToL1Tx → SubnetToL1Conversion whose conversionID is the one the tx commits to', async () => {
    const { genesis } = devnet;
    const answer = await get(txPath(devnet.info.l1ConversionTxId));
    expect(answer.status).toBe(201);
    const expectedId = conversionId(genesis.conversion.data);
    expectSignedL1Message(answer.body.signedMessage, { type: 'SubnetToL1Conversion', conversionId: expectedId });

    // The same ID three ways: the tx's own JSON as the node serves it (heavy weights above 2^53
    // arrive as exact strings), and the P-Chain's record of the conversion.
    const client = new PChainClient({ nodeBaseUrl: devnet.info.pchainUrl });
    const json = await client.getTx(genesis.conversion.txId, 'json');
    const unsignedTx = json.unsignedTx as { validators: { weight: unknown }[] };
    expect(unsignedTx.validators.some((v) => typeof v.weight === 'string' && BigInt(v.weight) > BigInt(Number.MAX_SAFE_INTEGER))).toBe(true);
    expect(conversionId(conversionDataFromTxJson(json.unsignedTx as Record<string, unknown>))).toEqual(expectedId);
    expect((await client.getSubnet(genesis.subnetId)).conversionId).toEqual(expectedId);
  });

  it('RegisterL1ValidatorTx → L1ValidatorRegistration(validationID, true)', async () => {
    const { registration } = devnet.genesis;
    expect(registration.validationId).toEqual(sha256(encodeL1Message(registration.payload)));
    const answer = await get(txPath(cb58Encode(registration.txId)));
    expect(answer.status).toBe(201);
    expectSignedL1Message(answer.body.signedMessage, { type: 'L1ValidatorRegistration', validationId: registration.validationId, registered: true });
  });

  it('SetL1ValidatorWeightTx → L1ValidatorWeight(validationID, nonce, weight)', async () => {
    const { weightChange } = devnet.genesis;
    const answer = await get(txPath(cb58Encode(weightChange.txId), '?quorumPercentage=70&quorumPercentageBuffer=10'));
    expect(answer.status).toBe(201);
    expectSignedL1Message(answer.body.signedMessage, {
      type: 'L1ValidatorWeight',
      validationId: weightChange.validationId,
      nonce: weightChange.nonce,
      weight: weightChange.weight,
    });
    const signed = parseSignedMessage(hexToBytes(answer.body.signedMessage as string));
    expect(verifySignedMessage(signed, l1Set, 70, devnet.genesis.networkId).valid).toBe(true);
  });

  it('signs with the subnet signingSubnetId names', async () => {
    const stranger = cb58Encode(sha256(Uint8Array.of(42)));
    // A subnet the P-Chain does not know is the client's mistake: 404, not a 503 that invites retries.
    expect(await get(txPath(devnet.info.l1ConversionTxId, `?signingSubnetId=${stranger}`))).toEqual({
      status: 404,
      body: dataApiError(404, `subnet ${stranger} is not known to the P-Chain`),
    });
  });

  // Paths as functions of the conversion's txHash (known once the devnet runs).
  it.each<[string, (tx: string) => string, number, string | RegExp]>([
    ['a txHash that is not cb58', () => txPath('0xnot-a-tx-hash'), 400, /^txHash: must be a cb58 transaction ID: /],
    ['a cb58 txHash of the wrong length', () => txPath(cb58Encode(new Uint8Array(20))), 400, 'txHash: must be a cb58 transaction ID: must be 32 bytes, got 20'],
    ['an unknown transaction', () => txPath(cb58Encode(sha256(Uint8Array.of(7)))), 404, /^transaction \w+ is not known to the P-Chain$/],
    ['a network the path cannot name', (tx) => `/v1/signatureAggregator/devnet/aggregateSignatures/${tx}`, 400, "network: must be mainnet, fuji or testnet, got 'devnet'"],
    ['a quorumPercentage that is not an integer', (tx) => txPath(tx, '?quorumPercentage=abc'), 400, "quorumPercentage: must be an integer, got 'abc'"],
    ['a quorumPercentage above 100', (tx) => txPath(tx, '?quorumPercentage=101'), 400, 'quorumPercentage: must be from 0 to 100, got 101'],
    ['a quorumPercentage given twice', (tx) => txPath(tx, '?quorumPercentage=60&quorumPercentage=70'), 400, 'quorumPercentage: must be given once, as a single value'],
    ['a buffer that takes the sum over 100', (tx) => txPath(tx, '?quorumPercentage=90&quorumPercentageBuffer=20'), 400, 'quorumPercentageBuffer: quorumPercentage + quorumPercentageBuffer must be at most 100, got 110'],
    ['a negative pChainHeight', (tx) => txPath(tx, '?pChainHeight=-1'), 400, /^pChainHeight: must be from 0 to \d+, got -1$/],
    ['a signingSubnetId that is no ID', (tx) => txPath(tx, '?signingSubnetId=zz'), 400, /^signingSubnetId: must be a 32-byte ID in hex or cb58: /],
  ])('%s → %i', async (_what, path, status, message) => {
    expect(await get(path(devnet.info.l1ConversionTxId))).toEqual({ status, body: dataApiError(status, message) });
  });

  it('a transaction still Processing → 404 saying it is not committed yet', async () => {
    const pending = cb58Encode(devnet.genesis.pendingWeightChange.txId);
    expect(await get(txPath(pending))).toEqual({
      status: 404,
      body: dataApiError(404, `transaction ${pending} is not committed yet (status Processing); its message can be signed once it is accepted`),
    });
  });
});

describe('signers judge P-Chain messages by the P-Chain state', () => {
  it('a weight message with a stale nonce is refused by every validator, signer peers and avalanchego nodes (P-Chain verifier) alike: 503 with the refusals counted', async () => {
    const { weightChange, networkId, subnetId } = devnet.genesis;
    const stale = newPChainMessage(networkId, { type: 'L1ValidatorWeight', validationId: weightChange.validationId, nonce: weightChange.nonce - 1n, weight: weightChange.weight });
    const answer = await post(POST_PATH, { message: bytesToHex(stale.bytes), signingSubnetId: cb58Encode(subnetId) });
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ statusCode: 503, error: 'Service Unavailable' });
    const counts = /asked (\d+), answered 0, refused (\d+),/.exec(String(answer.body.message));
    expect(String(answer.body.message)).toMatch(/^quorum not reached/);
    expect(counts).not.toBeNull();
    expect(Number(counts![2])).toBe(Number(counts![1]));
    // The default devnet mixes both transports; each canonical validator (one per BLS key) is asked once.
    expect(devnet.info.p2p.length).toBeGreaterThan(0);
    expect(Number(counts![1])).toBe(new Set(devnet.genesis.validators.map((v) => bytesToHex(v.publicKey))).size);
  });
});

describe('POST with a justification and no message', () => {
  it('a subnet ID → SubnetToL1Conversion for that subnet, signed by it', async () => {
    const { genesis } = devnet;
    const answer = await post(POST_PATH, { justification: bytesToHex(genesis.subnetId) });
    expect(answer.status).toBe(201);
    expectSignedL1Message(answer.body.signedMessage, { type: 'SubnetToL1Conversion', conversionId: genesis.conversion.conversionId });
  });

  it('a SubnetIDIndex of a validator that never registered → L1ValidatorRegistration(…, false)', async () => {
    const { subnetId, conversion } = devnet.genesis;
    const index = conversion.data.validators.length + 4;
    const justification = encodeL1ValidatorRegistrationJustification({ type: 'SubnetIdIndex', subnetId, index });
    const answer = await post(POST_PATH, { justification: `0x${bytesToHex(justification)}` });
    expect(answer.status).toBe(201);
    expectSignedL1Message(answer.body.signedMessage, { type: 'L1ValidatorRegistration', validationId: validationIdFromIndex(subnetId, index), registered: false });
  });

  it('an expired register message, icm-services dialect (network from the node) → 200', async () => {
    const payload = encodeL1Message({ ...devnet.genesis.registration.payload, nodeId: new Uint8Array(20).fill(9), expiry: GENESIS_TIME });
    const justification = encodeL1ValidatorRegistrationJustification({ type: 'RegisterL1ValidatorMessage', message: payload });
    const answer = await post('/aggregate-signatures', { justification: bytesToHex(justification) });
    expect(answer.status).toBe(200);
    expectSignedL1Message(answer.body['signed-message'], { type: 'L1ValidatorRegistration', validationId: sha256(payload), registered: false });
  });

  it('a SubnetIDIndex of a validator that exists → refused by the signers (503)', async () => {
    const justification = encodeL1ValidatorRegistrationJustification({ type: 'SubnetIdIndex', subnetId: devnet.genesis.subnetId, index: 0 });
    const answer = await post(POST_PATH, { justification: bytesToHex(justification) });
    expect(answer).toEqual({ status: 503, body: dataApiError(503, /^quorum not reached .* refused [1-9]/) });
  });

  it('a subnet that was never converted → 404', async () => {
    const stranger = sha256(Uint8Array.of(5));
    expect(await post(POST_PATH, { justification: bytesToHex(stranger) })).toEqual({
      status: 404,
      body: dataApiError(404, `justification: subnet ${cb58Encode(stranger)} is not known to the P-Chain`),
    });
  });

  it('anything else → 400 saying a message is required', async () => {
    expect(await post(POST_PATH, { justification: 'deadbeef' })).toEqual({
      status: 400,
      body: dataApiError(400, /^message: is required: the justification given does not determine a message/),
    });
  });
});
