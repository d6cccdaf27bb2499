import { sha256 } from '@noble/hashes/sha2.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadBackend, nobleBackend } from '../../../src/bls/index.js';
import { buildGenesis, HEIGHTS, KEYLESS_NODE_ID, l1EntriesAt, WEIGHT_CHANGE_NONCE } from '../../../src/devnet/genesis/index.js';
import { INVALID_ARGUMENT_MESSAGE } from '../../../src/devnet/pchain/json-rpc-errors.js';
import { SIMULATED_ERROR_MESSAGE, startPChainNode, type SimulatedNode } from '../../../src/devnet/pchain/node.js';
import { DevnetEpochs } from '../../../src/devnet/pchain/proposervm-service.js';
import { InfoClient } from '../../../src/node/info.js';
import { ProposerVmClient } from '../../../src/node/proposervm.js';
import { JsonRpcTransport } from '../../../src/node/transport.js';
import { canonicalSet } from '../../../src/validators/canonical-set.js';
import { parseJsonLossless } from '../../../src/node/json.js';
import { parseCurrentValidatorsResult, parseValidatorsAtResult } from '../../../src/node/pchain-results.js';
import { verifySignedMessage } from '../../../src/validators/verify.js';
import {
  bytesToHex,
  cb58Encode,
  conversionId,
  hexToBytes,
  parseL1Message,
  parsePayload,
  parseSignedMessage,
  parseNodeId,
  parseCb58Id,
} from '../../../src/warp/index.js';

const REQUEST_DEADLINE_MS = 5_000;
const genesis = buildGenesis({ validators: 7, seed: 'pchain-node-test', byzantine: 1 });
const subnetID = cb58Encode(genesis.subnetId);
const blockchainID = cb58Encode(genesis.blockchainId);

let node: SimulatedNode;
const extraNodes: SimulatedNode[] = [];

beforeAll(async () => {
  node = await startPChainNode({ genesis });
});
afterEach(async () => {
  node.setFault(null);
  await Promise.all(extraNodes.splice(0).map((n) => n.close()));
});
afterAll(async () => {
  await node.close();
});

interface RawAnswer {
  status: number;
  contentType: string | null;
  text: string;
}

async function post(url: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<RawAnswer> {
  const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) });
  return { status: res.status, contentType: res.headers.get('content-type'), text: await res.text() };
}

/** One JSON-RPC call; returns the parsed envelope (lossless, so big JSON numbers stay exact). */
async function rpc(method: string, params?: unknown, path = '/ext/bc/P', on: SimulatedNode = node): Promise<{ result?: any; error?: any; id?: unknown }> {
  const answer = await post(`${on.url}${path}`, JSON.stringify({ jsonrpc: '2.0', id: 7, method, ...(params === undefined ? {} : { params }) }));
  expect(answer.status).toBe(200);
  return parseJsonLossless(answer.text) as { result?: any; error?: any };
}

async function result(method: string, params?: unknown, path?: string): Promise<any> {
  const answer = await rpc(method, params, path);
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

describe('platform heights and validator sets', () => {
  it('answers getHeight and getProposedHeight as uint64 strings', async () => {
    expect(await result('platform.getHeight', {})).toEqual({ height: String(genesis.currentHeight) });
    expect(await result('platform.getProposedHeight')).toEqual({ height: String(genesis.proposedHeight) });
  });

  it('answers getValidatorsAt with the current bare-map shape, keyless entry included', async () => {
    const res = await result('platform.getValidatorsAt', { height: 'proposed', subnetID });
    expect(res[KEYLESS_NODE_ID]).toEqual({ publicKey: null, weight: genesis.keylessWeight.toString() });
    const entries = parseValidatorsAtResult(res);
    const expected = l1EntriesAt(genesis.l1Validators, genesis.proposedHeight);
    expect(entries.map((e) => `${e.nodeId}:${e.weight}`).sort()).toEqual(expected.map((e) => `${e.nodeId}:${e.weight}`).sort());
    const set = canonicalSet(entries, loadBackend());
    expect(set.totalWeight).toBe(genesis.totalWeight);
    expect(set.validators).toHaveLength(genesis.validators.length - 1); // the shared key merges two
  });

  it('gives older heights their own sets, and refuses heights above the tip', async () => {
    const now = parseValidatorsAtResult(await result('platform.getValidatorsAt', { height: genesis.currentHeight, subnetID }));
    const then = parseValidatorsAtResult(await result('platform.getValidatorsAt', [{ height: String(HEIGHTS.conversion), subnetID }]));
    expect(then.length).toBeLessThan(now.length);
    expect(await result('platform.getValidatorsAt', { height: HEIGHTS.conversion - 1, subnetID })).toEqual({});
    const tooHigh = await rpc('platform.getValidatorsAt', { height: genesis.currentHeight + 1, subnetID });
    expect(tooHigh.error.code).toBe(-32000);
    // avalanchego's text word for word (service.go GetValidatorsAt, validators/manager.go makeValidatorSet):
    // warpgate reads the current height from it to answer the client.
    const h = genesis.currentHeight + 1;
    expect(tooHigh.error.message).toBe(
      `failed to get validator set at ${h}: failed to fetch validator set at unfinalized height with SubnetID = ${subnetID}: current P-chain height (${genesis.currentHeight}) < requested P-Chain height (${h})`,
    );
  });

  it('serves the legacy `{validators: {NodeID: weight}}` shape when asked', async () => {
    const legacy = await startPChainNode({ genesis, legacyValidatorsAtShape: true });
    extraNodes.push(legacy);
    const answer = await rpc('platform.getValidatorsAt', { height: genesis.currentHeight, subnetID }, '/ext/bc/P', legacy);
    const heavy = genesis.validators.find((v) => v.weight > 2n ** 53n)!;
    expect(answer.result.validators[heavy.nodeId]).toBe(heavy.weight.toString()); // a JSON number, kept exact
    expect(parseValidatorsAtResult(answer.result)).toHaveLength(l1EntriesAt(genesis.l1Validators, genesis.currentHeight).length);
  });

  it('answers getCurrentValidators for the L1 with L1 fields, parsed into the same canonical set', async () => {
    const res = await result('platform.getCurrentValidators', { subnetID });
    const first = res.validators[0];
    for (const field of ['nodeID', 'weight', 'startTime', 'validationID', 'publicKey', 'remainingBalanceOwner', 'deactivationOwner', 'minNonce', 'balance']) {
      expect(first).toHaveProperty(field);
    }
    expect(typeof first.weight).toBe('string');
    const fromCurrent = canonicalSet(parseCurrentValidatorsResult(res), loadBackend());
    const fromAt = canonicalSet(l1EntriesAt(genesis.l1Validators, genesis.currentHeight), loadBackend());
    expect(fromCurrent.totalWeight).toBe(fromAt.totalWeight);
    expect(fromCurrent.validators.map((v) => `${v.publicKeyHex}:${v.weight}`)).toEqual(fromAt.validators.map((v) => `${v.publicKeyHex}:${v.weight}`));
  });

  it('answers getCurrentValidators for the Primary Network with signers whose PoPs verify, filtered by nodeIDs', async () => {
    const all = await result('platform.getCurrentValidators');
    expect(all.validators).toHaveLength(genesis.primaryValidators.length);
    // Unknown node IDs are left out; asking for exactly one node also lists its delegators.
    const withUnknown = await result('platform.getCurrentValidators', { nodeIDs: [genesis.node.nodeId, 'NodeID-111111111111111111116DBWJs'] });
    expect(withUnknown.validators.map((x: { nodeID: string }) => x.nodeID)).toEqual([genesis.node.nodeId]);
    expect(withUnknown.validators[0].delegators).toBeUndefined();
    const one = await result('platform.getCurrentValidators', { nodeIDs: [genesis.node.nodeId] });
    const v = one.validators[0];
    expect(v.delegators).toEqual([]);
    const noble = nobleBackend();
    const pk = noble.publicKeyFromBytes(hexToBytes(v.signer.publicKey));
    expect(noble.verifyProofOfPossession(pk, noble.signatureFromBytes(hexToBytes(v.signer.proofOfPossession)))).toBe(true);
    expect(parseCurrentValidatorsResult(all).every((e) => e.publicKey !== null)).toBe(true);
  });

  it('answers getAllValidatorsAt with canonical sets for the Primary Network and the L1', async () => {
    const res = await result('platform.getAllValidatorsAt', { height: 'proposed' });
    const l1 = res.validatorSets[subnetID];
    const expected = canonicalSet(l1EntriesAt(genesis.l1Validators, genesis.proposedHeight), loadBackend());
    expect(l1.totalWeight).toBe(expected.totalWeight.toString());
    expect(l1.validators.map((v: { publicKey: string }) => v.publicKey)).toEqual(expected.validators.map((v) => `0x${v.publicKeyHex}`));
    expect(res.validatorSets['11111111111111111111111111111111LpoYY'].validators.length).toBeGreaterThan(0);
    const before = await result('platform.getAllValidatorsAt', { height: HEIGHTS.conversion - 1 });
    expect(before.validatorSets[subnetID]).toBeUndefined();
  });

  it('answers getL1Validator for a validation ID', async () => {
    const res = await result('platform.getL1Validator', { validationID: cb58Encode(genesis.weightChange.validationId) });
    expect(res.weight).toBe(genesis.weightChange.weight.toString());
    expect(res.minNonce).toBe((WEIGHT_CHANGE_NONCE + 1n).toString());
    expect(res.subnetID).toBe(subnetID);
    const missing = await rpc('platform.getL1Validator', { validationID: cb58Encode(sha256(new Uint8Array([9]))) });
    expect(missing.error.message).toMatch(/not found/);
  });
});

describe('platform chains and subnets', () => {
  it('answers validatedBy: the L1 chain is validated by the L1, the C-Chain by the Primary Network', async () => {
    expect(await result('platform.validatedBy', { blockchainID })).toEqual({ subnetID });
    expect(await result('platform.validatedBy', { blockchainID: cb58Encode(genesis.cChainId) })).toEqual({ subnetID: '11111111111111111111111111111111LpoYY' });
    const unknown = await rpc('platform.validatedBy', { blockchainID: cb58Encode(sha256(new Uint8Array([1]))) });
    expect(unknown.error.message).toBe(`problem retrieving blockchain "${cb58Encode(sha256(new Uint8Array([1])))}": not found`);
    // avalanchego (manager.go GetSubnetID) tells an ID of another kind of transaction apart.
    const notAChain = await rpc('platform.validatedBy', { blockchainID: subnetID });
    expect(notAChain.error).toMatchObject({ code: -32000, message: `"${subnetID}" is not a blockchain` });
    const tx = await rpc('platform.validatedBy', { blockchainID: genesis.l1ConversionTxId });
    expect(tx.error.message).toBe(`"${genesis.l1ConversionTxId}" is not a blockchain`);
  });

  it('answers getSubnet with the conversion, and refuses the Primary Network', async () => {
    const res = await result('platform.getSubnet', { subnetID });
    expect(res).toMatchObject({
      isPermissioned: false,
      conversionID: cb58Encode(genesis.conversion.conversionId),
      managerChainID: blockchainID,
      managerAddress: `0x${bytesToHex(genesis.managerAddress)}`,
      threshold: '1',
    });
    expect((await rpc('platform.getSubnet', { subnetID: '11111111111111111111111111111111LpoYY' })).error.message).toBe("the primary network isn't a subnet");
    expect((await rpc('platform.getSubnet', { subnetID: cb58Encode(sha256(new Uint8Array([3]))) })).error.message).toBe('not found');
    // state.go GetSubnetOwner: a transaction that is not a CreateSubnetTx.
    expect((await rpc('platform.getSubnet', { subnetID: blockchainID })).error.message).toBe(`"${blockchainID}" is not a subnet`);
  });

  it('answers getBlockchainStatus', async () => {
    expect(await result('platform.getBlockchainStatus', { blockchainID })).toEqual({ status: 'Validating' });
    expect(await result('platform.getBlockchainStatus', { blockchainID: 'C' })).toEqual({ status: 'Validating' });
    expect(await result('platform.getBlockchainStatus', { blockchainID: cb58Encode(sha256(new Uint8Array([4]))) })).toEqual({ status: 'Unknown' });
    expect((await rpc('platform.getBlockchainStatus', {})).error.message).toBe("argument 'blockchainID' not given");
  });
});

describe('platform.getTx and getTxStatus', () => {
  it('serves the ConvertSubnetToL1Tx as JSON whose numbers give the conversionID src/warp computes', async () => {
    const res = await result('platform.getTx', { txID: genesis.l1ConversionTxId, encoding: 'json' });
    expect(res.encoding).toBe('json');
    expect(res.tx.id).toBe(genesis.l1ConversionTxId);
    const tx = res.tx.unsignedTx;
    expect(tx.networkID).toBe(genesis.networkId);
    expect(tx.subnetID).toBe(subnetID);
    expect(tx.chainID).toBe(blockchainID);
    const computed = conversionId({
      subnetId: parseCb58Id(tx.subnetID),
      managerChainId: parseCb58Id(tx.chainID),
      managerAddress: hexToBytes(tx.address),
      validators: tx.validators.map((v: { nodeID: string; weight: string | number; signer: { publicKey: string } }) => ({
        nodeId: hexToBytes(v.nodeID),
        blsPublicKey: hexToBytes(v.signer.publicKey),
        weight: BigInt(v.weight),
      })),
    });
    expect(cb58Encode(computed)).toBe(cb58Encode(genesis.conversion.conversionId));
    // The weights are plain JSON numbers beyond 2^53: a float64 reader would compute another ID.
    const raw = await post(`${node.url}/ext/bc/P`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'platform.getTx', params: { txID: genesis.l1ConversionTxId, encoding: 'json' } }));
    const heavy = tx.validators.find((v: { weight: unknown }) => typeof v.weight === 'string');
    expect(heavy).toBeDefined();
    expect(raw.text).toContain(`"weight":${heavy.weight}`);
  });

  it('serves the same transaction as hex with a checksum, whose sha256 is the txID', async () => {
    const hex = await result('platform.getTx', { txID: genesis.l1ConversionTxId, encoding: 'hex' });
    const bytes = hexToBytes(hex.tx);
    const body = bytes.subarray(0, bytes.length - 4);
    expect(bytesToHex(bytes.subarray(-4))).toBe(bytesToHex(sha256(body).subarray(-4)));
    expect(cb58Encode(sha256(body))).toBe(genesis.l1ConversionTxId);
    expect(bytesToHex(body.subarray(0, 6))).toBe('000000000023'); // codec 0, ConvertSubnetToL1Tx
    const defaultEncoding = await result('platform.getTx', { txID: genesis.l1ConversionTxId });
    expect(defaultEncoding).toEqual(hex);
    const noChecksum = await result('platform.getTx', { txID: genesis.l1ConversionTxId, encoding: 'hexnc' });
    expect(hexToBytes(noChecksum.tx)).toEqual(body);
  });

  it('serves the RegisterL1ValidatorTx with a signed message that verifies against the set at that height', async () => {
    const txID = cb58Encode(genesis.registration.txId);
    const res = await result('platform.getTx', { txID, encoding: 'json' });
    const tx = res.tx.unsignedTx;
    expect(tx.proofOfPossession).toHaveLength(96);
    const signed = parseSignedMessage(hexToBytes(tx.message));
    const setBefore = parseValidatorsAtResult(await result('platform.getValidatorsAt', { height: HEIGHTS.registration - 1, subnetID }));
    expect(verifySignedMessage(signed, setBefore, 67, genesis.networkId, nobleBackend())).toMatchObject({ valid: true });
    const call = parsePayload(signed.unsigned.payload);
    if (call.type !== 'AddressedCall') throw new Error('expected an AddressedCall');
    const message = parseL1Message(call.payload);
    if (message.type !== 'RegisterL1Validator') throw new Error('wrong payload');
    const noble = nobleBackend();
    const pop = noble.signatureFromBytes(Uint8Array.from(tx.proofOfPossession as number[]));
    expect(noble.verifyProofOfPossession(noble.publicKeyFromBytes(message.blsPublicKey), pop)).toBe(true);
    const validationID = cb58Encode(sha256(call.payload));
    const current = await result('platform.getCurrentValidators', { subnetID });
    expect(current.validators.some((v: { validationID: string }) => v.validationID === validationID)).toBe(true);
  });

  it('serves the SetL1ValidatorWeightTx, whose validator now has that weight and minNonce n+1', async () => {
    const res = await result('platform.getTx', { txID: cb58Encode(genesis.weightChange.txId), encoding: 'json' });
    const signed = parseSignedMessage(hexToBytes(res.tx.unsignedTx.message));
    const call = parsePayload(signed.unsigned.payload);
    if (call.type !== 'AddressedCall') throw new Error('expected an AddressedCall');
    const message = parseL1Message(call.payload);
    if (message.type !== 'L1ValidatorWeight') throw new Error('wrong payload');
    const validator = await result('platform.getL1Validator', { validationID: cb58Encode(message.validationId) });
    expect(validator.weight).toBe(message.weight.toString());
    expect(validator.minNonce).toBe((message.nonce + 1n).toString());
  });

  it('reports Committed, Processing and Unknown; a processing tx is not served yet', async () => {
    expect(await result('platform.getTxStatus', { txID: genesis.l1ConversionTxId })).toEqual({ status: 'Committed' });
    const pending = cb58Encode(genesis.pendingWeightChange.txId);
    expect(await result('platform.getTxStatus', { txID: pending })).toEqual({ status: 'Processing' });
    expect(await result('platform.getTxStatus', { txID: cb58Encode(sha256(new Uint8Array([5]))) })).toEqual({ status: 'Unknown' });
    expect((await rpc('platform.getTx', { txID: pending, encoding: 'json' })).error.message).toBe("couldn't get tx: not found");
    expect((await rpc('platform.getTx', { txID: cb58Encode(sha256(new Uint8Array([6]))), encoding: 'json' })).error.message).toBe("couldn't get tx: not found");
  });
});

describe('JSON-RPC conventions (gorilla json2 as avalanchego uses it)', () => {
  const url = () => `${node.url}/ext/bc/P`;

  it('answers unparseable JSON with -32700 at HTTP 200', async () => {
    const answer = await post(url(), '{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.text);
    expect(body.jsonrpc).toBe('2.0');
    expect(body.error.code).toBe(-32700);
    expect(body.id).toBeNull();
  });

  it('answers a bad envelope with -32600', async () => {
    const body = JSON.parse((await post(url(), JSON.stringify({ jsonrpc: '1.0', id: 3, method: 'platform.getHeight' }))).text);
    expect(body.error).toMatchObject({ code: -32600, message: 'jsonrpc must be 2.0' });
    expect(body.id).toBe(3);
  });

  it('answers unknown methods and services with -32000 and data null', async () => {
    const body = JSON.parse((await post(url(), JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'platform.foo' }))).text);
    expect(body).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'rpc: can\'t find method "platform.Foo"', data: null }, id: 1 });
    expect((await rpc('info.getNodeID')).error.message).toBe('rpc: can\'t find service "info.GetNodeID"');
    expect((await rpc('platform.GetHeight')).error.message).toBe('method must start with a non-uppercase letter');
    expect((await rpc('getHeight')).error.message).toBe('rpc: service/method request ill-formed: "getHeight"');
  });

  it('answers bad params with avalanchego’s one message', async () => {
    for (const params of [{ subnetID: 'not-an-id', height: 1 }, { height: -1 }, { height: 'latest' }, { height: 1.5 }, 'a string', [5]]) {
      const answer = await rpc('platform.getValidatorsAt', params);
      expect(answer.error).toEqual({ code: -32000, message: INVALID_ARGUMENT_MESSAGE, data: null });
    }
  });

  it('accepts params omitted, as an object, as [object], with uint64 as string or number, and id 0', async () => {
    const omitted = JSON.parse((await post(url(), JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'platform.getHeight' }))).text);
    expect(omitted).toEqual({ jsonrpc: '2.0', result: { height: String(genesis.currentHeight) }, id: 0 });
    const asString = await result('platform.getValidatorsAt', [{ height: String(HEIGHTS.registration), subnetID }]);
    const asNumber = await result('platform.getValidatorsAt', { height: HEIGHTS.registration, subnetID });
    expect(asString).toEqual(asNumber);
    const caseInsensitive = await result('platform.getValidatorsAt', { HEIGHT: HEIGHTS.registration, subnetid: subnetID });
    expect(caseInsensitive).toEqual(asNumber);
  });

  it('reads uint64 params written as JSON numbers beyond 2^53 exactly', async () => {
    const call = (height: string) => post(url(), `{"jsonrpc":"2.0","id":1,"method":"platform.getValidatorsAt","params":{"height":${height}}}`);
    const huge = JSON.parse((await call('18446744073709551614')).text);
    expect(huge.error.message).toMatch(/requested P-Chain height \(18446744073709551614\)/);
    const reserved = JSON.parse((await call('18446744073709551615')).text);
    expect(reserved.error.message).toBe(INVALID_ARGUMENT_MESSAGE);
  });

  it('sends no body for a notification (no id)', async () => {
    const answer = await post(url(), JSON.stringify({ jsonrpc: '2.0', method: 'platform.getHeight' }));
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('');
  });

  it('refuses non-POST with 405 and a missing or foreign content type with 415', async () => {
    const get = await fetch(url(), { signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) });
    expect(get.status).toBe(405);
    expect(await get.text()).toBe('rpc: POST method required, received GET');
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'platform.getHeight' });
    const missing = await fetch(url(), { method: 'POST', body: new Blob([body]), signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) });
    expect(missing.status).toBe(415);
    expect(await missing.text()).toBe('rpc: unrecognized Content-Type: ');
    const text = await post(url(), body, { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    const charset = await post(url(), body, { 'content-type': 'application/json; charset=UTF-8' });
    expect(charset.status).toBe(200);
  });

  it('answers 404 for paths it does not serve', async () => {
    const answer = await post(`${node.url}/ext/bc/X`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'avm.getHeight' }));
    expect(answer.status).toBe(404);
  });
});

describe('info and health', () => {
  it('answers info.getNetworkID, getNodeVersion, isBootstrapped and getNodeID', async () => {
    expect(await result('info.getNetworkID', undefined, '/ext/info')).toEqual({ networkID: String(genesis.networkId) });
    expect((await result('info.getNodeVersion', {}, '/ext/info')).version).toMatch(/^avalanchego\//);
    expect(await result('info.isBootstrapped', { chain: 'P' }, '/ext/info')).toEqual({ isBootstrapped: true });
    expect(await result('info.isBootstrapped', { chain: blockchainID }, '/ext/info')).toEqual({ isBootstrapped: true });
    expect((await rpc('info.isBootstrapped', { chain: 'Q' }, '/ext/info')).error.message).toMatch(/no chain with alias\/ID 'Q'/);
    const id = await result('info.getNodeID', undefined, '/ext/info');
    expect(parseNodeId(id.nodeID)).toEqual(genesis.validators[0]!.nodeIdBytes);
    const noble = nobleBackend();
    expect(noble.verifyProofOfPossession(noble.publicKeyFromBytes(hexToBytes(id.nodePOP.publicKey)), noble.signatureFromBytes(hexToBytes(id.nodePOP.proofOfPossession)))).toBe(true);
  });

  it('answers info.peers with each listed peer’s publicIP (the address it listens on) and a different ip, filtered by nodeIDs', async () => {
    const [a, b] = genesis.validators;
    const peers = [
      { nodeId: a!.nodeId, host: '127.0.0.1', port: 9651 },
      { nodeId: b!.nodeId, host: '::1', port: 9653 },
    ];
    const withPeers = await startPChainNode({ genesis, peers: () => peers });
    extraNodes.push(withPeers);
    const all = (await rpc('info.peers', { nodeIDs: [] }, '/ext/info', withPeers)).result;
    expect(all.numPeers).toBe('2');
    expect(all.peers.map((p: any) => [p.nodeID, p.publicIP])).toEqual([
      [a!.nodeId, '127.0.0.1:9651'],
      [b!.nodeId, '[::1]:9653'],
    ]);
    for (const p of all.peers) expect(p.ip).not.toBe(p.publicIP);
    const one = (await rpc('info.peers', { nodeIDs: [b!.nodeId] }, '/ext/info', withPeers)).result;
    expect(one.peers.map((p: any) => p.nodeID)).toEqual([b!.nodeId]);
    // A node with no avalanchego peers lists none.
    expect((await rpc('info.peers', {}, '/ext/info')).result).toEqual({ numPeers: '0', peers: [] });
  });

  it('serves health over GET (200 healthy) and JSON-RPC', async () => {
    for (const path of ['/ext/health', '/ext/health/health', '/ext/health/readiness', '/ext/health/liveness']) {
      const res = await fetch(`${node.url}${path}`, { signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { healthy: boolean }).healthy).toBe(true);
    }
    const rpcHealth = await result('health.health', undefined, '/ext/health');
    expect(rpcHealth.healthy).toBe(true);
    expect(Object.keys(rpcHealth.checks)).toContain('bootstrapped');
    expect(await result('health.liveness', undefined, '/ext/health')).toEqual({ checks: {}, healthy: true });
  });
});

describe('faults and the call log', () => {
  it("'error' answers every call with a JSON-RPC error and GET health with 503", async () => {
    node.setFault('error');
    expect(await rpc('platform.getHeight')).toMatchObject({ error: { code: -32000, message: SIMULATED_ERROR_MESSAGE } });
    const health = await fetch(`${node.url}/ext/health`, { signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) });
    expect(health.status).toBe(503);
    expect(((await health.json()) as { healthy: boolean }).healthy).toBe(false);
    node.setFault(null);
    expect(await result('platform.getHeight')).toEqual({ height: String(genesis.currentHeight) });
  });

  it("'slow' delays answers by the given time", async () => {
    node.setFault('slow', 1_000);
    let answered = false;
    const answer = result('platform.getHeight').finally(() => (answered = true));
    // A timer due well before the node's delay fires first: the answer is still held back then.
    await new Promise((r) => setTimeout(r, 250));
    expect(answered).toBe(false);
    expect(await answer).toEqual({ height: String(genesis.currentHeight) });
  });

  it("'down' closes connections without answering, and recovers", async () => {
    node.setFault('down');
    await expect(fetch(`${node.url}/ext/bc/P`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'platform.getHeight' }),
      signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
    })).rejects.toThrow();
    node.setFault(null);
    expect(await result('platform.getHeight')).toEqual({ height: String(genesis.currentHeight) });
  });

  it('logs calls with their params, newest last, bounded', async () => {
    const small = await startPChainNode({ genesis, maxLoggedCalls: 3 });
    extraNodes.push(small);
    for (const h of [1, 2, 3, 4]) await rpc('platform.getValidatorsAt', { height: h }, '/ext/bc/P', small);
    await rpc('info.getNetworkID', undefined, '/ext/info', small);
    expect(small.calls).toEqual([
      { method: 'platform.getValidatorsAt', params: { height: 3 } },
      { method: 'platform.getValidatorsAt', params: { height: 4 } },
      { method: 'info.getNetworkID', params: undefined },
    ]);
  });

  it('close() ends pending slow answers at once', async () => {
    const slow = await startPChainNode({ genesis });
    slow.setFault('slow', 30_000);
    const pending = fetch(`${slow.url}/ext/bc/P`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'platform.getHeight' }),
      signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
    }).then(
      () => 'answered',
      // Our own deadline giving up would be a TimeoutError: the node closing is not.
      (err: { name?: string }) => (err.name === 'TimeoutError' ? 'timed out' : 'failed'),
    );
    await new Promise((r) => setTimeout(r, 50));
    await slow.close();
    expect(await pending).toBe('failed');
  });
});

describe('the L1 chain’s ProposerVM (its ACP-181 epoch) and info.upgrades', () => {
  const proposerVm = `/ext/bc/${blockchainID}/proposervm`;

  it('answers getCurrentEpoch and getProposedHeight as json.Uint64 strings; the epoch starts before the featured registration', async () => {
    const epoch = await result('proposervm.getCurrentEpoch', {}, proposerVm);
    expect(epoch).toMatchObject({ number: '1', pChainHeight: String(HEIGHTS.registration - 1) });
    expect(epoch.startTime).toMatch(/^\d+$/);
    expect(await result('proposervm.getProposedHeight', {}, proposerVm)).toEqual({ height: String(genesis.proposedHeight) });
    // The node client reads it as avalanchego's answer.
    const client = new ProposerVmClient(new JsonRpcTransport({ nodeBaseUrl: node.url }), genesis.blockchainId);
    expect(await client.getCurrentEpoch()).toMatchObject({ number: 1, pChainHeight: HEIGHTS.registration - 1 });
  });

  it('serves no ProposerVM for a chain it does not run', async () => {
    const answer = await post(`${node.url}/ext/bc/${cb58Encode(new Uint8Array(32).fill(3))}/proposervm`, '{}');
    expect(answer.status).toBe(404);
  });

  it('answers info.upgrades with Granite active and a 30 s graniteEpochDuration in nanoseconds', async () => {
    const upgrades = await result('info.upgrades', {}, '/ext/info');
    expect(upgrades.graniteEpochDuration).toBe(30_000_000_000);
    expect(upgrades.graniteTime).toBe('2020-12-05T05:00:00Z');
    expect(await new InfoClient({ nodeBaseUrl: node.url }).epochDurationMs()).toBe(30_000);
  });

  it('devnet.advanceEpoch starts the next epoch at the height given (default the current one), and refuses one before the conversion', async () => {
    const own = await startPChainNode({ genesis, epochHeight: HEIGHTS.conversion });
    extraNodes.push(own);
    expect(await result('proposervm.getCurrentEpoch', {}, proposerVm)).toMatchObject({ number: '1' });
    const first = (await rpc('proposervm.getCurrentEpoch', {}, proposerVm, own)).result;
    expect(first).toMatchObject({ number: '1', pChainHeight: String(HEIGHTS.conversion) });
    expect((await rpc('devnet.advanceEpoch', { pChainHeight: String(HEIGHTS.weightChange) }, '/ext/devnet', own)).result).toMatchObject({ number: '2', pChainHeight: String(HEIGHTS.weightChange) });
    expect((await rpc('devnet.advanceEpoch', {}, '/ext/devnet', own)).result).toMatchObject({ number: '3', pChainHeight: String(genesis.currentHeight) });
    expect((await rpc('proposervm.getCurrentEpoch', {}, proposerVm, own)).result).toMatchObject({ number: '3' });
    const refused = await rpc('devnet.advanceEpoch', { pChainHeight: 5 }, '/ext/devnet', own);
    expect(refused.error.message).toBe(`epoch P-Chain height must be from ${HEIGHTS.conversion} (the L1's conversion) to ${genesis.currentHeight} (the current height), got 5`);
    expect(() => new DevnetEpochs(genesis, genesis.currentHeight + 1)).toThrow(RangeError);
  });
});
