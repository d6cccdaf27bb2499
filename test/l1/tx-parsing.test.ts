// Reading P-Chain transactions: the conversionID from a ConvertSubnetToL1Tx's JSON matches the
// shared vector (with a weight above 2^53), and through a real service in front of a scripted
// node, the answers a devnet cannot give: other transaction kinds, dropped transactions, a node
// whose bytes do not match the txID, malformed JSON.
import { sha256 } from '@noble/hashes/sha2.js';
import { pino } from 'pino';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { conversionDataFromTxJson } from '../../src/l1/tx-json.js';
import { l1MessageBuilder } from '../../src/service/l1-builder.js';
import { startService, type Service } from '../../src/service/start.js';
import { parseJsonLossless } from '../../src/node/json.js';
import { bytesTo0xHex, bytesToHex, cb58Encode, concatBytes, conversionId, hexToBytes, parseConversionData } from '../../src/warp/index.js';
import { startRpcServer, type Reply, type RpcServer } from '../node/rpc-server.js';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/warp-vectors.json', import.meta.url), 'utf8')) as {
  conversionData: { bytes: string; conversionID: string };
};
const DEADLINE_MS = 10_000;

/** getTx's JSON of a ConvertSubnetToL1Tx as avalanchego writes it: weights as bare JSON numbers. */
function convertTxJsonText(hexBytes: string): string {
  const d = parseConversionData(hexToBytes(hexBytes));
  const validators = d.validators.map(
    (v) =>
      `{"nodeID":"${bytesTo0xHex(v.nodeId)}","weight":${v.weight},"balance":1000000000,` +
      `"signer":{"publicKey":"${bytesTo0xHex(v.blsPublicKey)}","proofOfPossession":"0x${'00'.repeat(96)}"},` +
      `"remainingBalanceOwner":{"threshold":1,"addresses":[]},"deactivationOwner":{"threshold":1,"addresses":[]}}`,
  );
  return (
    `{"networkID":5,"blockchainID":"11111111111111111111111111111111LpoYY","outputs":[],"inputs":[],"memo":"0x",` +
    `"subnetID":"${cb58Encode(d.subnetId)}","chainID":"${cb58Encode(d.managerChainId)}","address":"${bytesTo0xHex(d.managerAddress)}",` +
    `"validators":[${validators.join(',')}],"subnetAuthorization":{"signatureIndices":[0]}}`
  );
}

describe('conversionID from a ConvertSubnetToL1Tx', () => {
  it('equals the shared vector, whose weight is above 2^53', () => {
    const text = convertTxJsonText(vectors.conversionData.bytes);
    const data = conversionDataFromTxJson(parseJsonLossless(text) as Record<string, unknown>);
    expect(data.validators[0]!.weight).toBe(9693866847254580365n);
    expect(bytesToHex(conversionId(data))).toBe(vectors.conversionData.conversionID);
    // Read with a plain JSON.parse the weight rounds and the ID is wrong: the lossless path matters.
    expect(() => conversionDataFromTxJson(JSON.parse(text) as Record<string, unknown>)).toThrow(/weight is not a uint64/);
  });

  it('names the field the node got wrong', () => {
    const tx = parseJsonLossless(convertTxJsonText(vectors.conversionData.bytes)) as Record<string, any>;
    tx.validators[0].nodeID = 'NodeID-111111111111111111116DBWJs';
    expect(() => conversionDataFromTxJson(tx, 'T')).toThrow(/transaction T: unsignedTx.validators\[0\].nodeID is not 0x hex/);
  });
});

// --- a service in front of a scripted node ---------------------------------------------------------

/** A transaction whose bytes start with `0000 | typeID`, and its cb58 ID. */
function fakeTx(typeId: number): { id: string; bytes: Uint8Array } {
  const bytes = concatBytes(Uint8Array.of(0, 0, 0, 0, 0, typeId), sha256(Uint8Array.of(typeId)));
  return { id: cb58Encode(sha256(bytes)), bytes };
}
const withChecksum = (bytes: Uint8Array): string => bytesTo0xHex(concatBytes(bytes, sha256(bytes).subarray(-4)));

const baseTx = fakeTx(34);
const createSubnetTx = fakeTx(16);
const futureTx = fakeTx(99);
const convertTx = fakeTx(35);
const lyingTx = fakeTx(36);
const droppedId = cb58Encode(sha256(Uint8Array.of(1, 2, 3)));
const txs = new Map([baseTx, createSubnetTx, futureTx, convertTx, lyingTx].map((t) => [t.id, t]));

let node: RpcServer;
let service: Service;

function answer(method: string, params: Record<string, unknown>): Reply {
  const txID = String(params.txID);
  if (method === 'platform.getTxStatus') {
    if (txID === droppedId) return { result: { status: 'Dropped', reason: 'failed to pay the fee' } };
    return { result: { status: txs.has(txID) ? 'Committed' : 'Unknown' } };
  }
  if (method === 'platform.getTx') {
    const tx = txs.get(txID)!;
    if (params.encoding === 'hex') {
      // This node serves other bytes than the transaction it was asked for.
      return { result: { tx: withChecksum(tx === lyingTx ? baseTx.bytes : tx.bytes), encoding: 'hex' } };
    }
    if (tx === convertTx) return { result: { tx: { unsignedTx: { networkID: 5, subnetID: 'nope', validators: [] }, credentials: [], id: txID }, encoding: 'json' } };
    return { result: { tx: { unsignedTx: { networkID: 5 }, credentials: [], id: txID }, encoding: 'json' } };
  }
  return { error: { code: -32000, message: `rpc: can't find method "${method}"` } };
}

beforeAll(async () => {
  node = await startRpcServer((call) => answer(call.method, call.params));
  const config = loadConfig({ env: {}, overrides: { port: 0, host: '127.0.0.1', 'upstreams.node': node.url, 'workers.threads': 1 } });
  service = await startService(config, { logger: pino({ level: 'silent' }), l1: l1MessageBuilder });
});
afterAll(async () => {
  await service?.close();
  await node?.close();
});

async function getTx(txHash: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${service.url}/v1/signatureAggregator/fuji/aggregateSignatures/${txHash}`, { signal: AbortSignal.timeout(DEADLINE_MS) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('GET aggregateSignatures/{txHash} against what a devnet never serves', () => {
  it('answers 400 naming the kind of any other transaction', async () => {
    expect(await getTx(baseTx.id)).toEqual({
      status: 400,
      body: {
        message: `txHash: ${baseTx.id} is a BaseTx; only ConvertSubnetToL1Tx, RegisterL1ValidatorTx and SetL1ValidatorWeightTx produce L1 messages`,
        statusCode: 400,
        error: 'Bad Request',
      },
    });
    expect((await getTx(createSubnetTx.id)).body.message).toMatch(/is a CreateSubnetTx;/);
    expect((await getTx(futureTx.id)).body.message).toMatch(/is a transaction of unknown type ID 99;/);
  });

  it('answers 404 for a dropped transaction, with the node’s reason', async () => {
    expect(await getTx(droppedId)).toEqual({
      status: 404,
      body: { message: `transaction ${droppedId} was dropped (failed to pay the fee) and will never be committed`, statusCode: 404, error: 'Not Found' },
    });
  });

  it('answers 502 when the node serves bytes of another transaction or malformed JSON', async () => {
    const lying = await getTx(lyingTx.id);
    expect(lying.status).toBe(502);
    expect(lying.body.message).toMatch(/platform.getTx failed: the node's bytes for transaction .* do not hash to its ID/);
    const malformed = await getTx(convertTx.id);
    expect(malformed).toMatchObject({ status: 502, body: { statusCode: 502, error: 'Bad Gateway' } });
    expect(malformed.body.message).toMatch(/transaction .*: unsignedTx.subnetID is not a cb58 ID/);
  });
});
