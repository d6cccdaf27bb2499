// The bench's P-Chain (bench/pchain-stub.ts) answers what a real client needs of a node, in
// avalanchego's shapes: icm-services reads every set at a height (platform.getAllValidatorsAt, in
// canonical order), asks whether the subnet is an L1 (getSubnet's conversionID) and which L1
// validators are funded (getCurrentValidators' validationID and balance), and bootstraps from the
// primary network's validators it finds in info.peers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPTIONS } from '../../bench/args.js';
import { startPChainStub, STUB_HEIGHT, type PChainStub } from '../../bench/pchain-stub.js';
import { buildScenario } from '../../bench/scenario.js';
import { loadBackend } from '../../src/bls/index.js';
import { canonicalSet } from '../../src/validators/canonical-set.js';
import { cb58Encode, parseNodeId, PRIMARY_NETWORK_ID } from '../../src/warp/cb58.js';
import { hexToBytes } from '../../src/warp/hex.js';
import { conversionId, validationIdFromIndex } from '../../src/warp/l1-messages.js';

const scenario = buildScenario({ ...DEFAULT_OPTIONS, validators: 7, weights: 'skewed', runs: 1, warmup: 0 });
const subnet = cb58Encode(scenario.subnetId);
const primary = cb58Encode(PRIMARY_NETWORK_ID);
let stub: PChainStub;

beforeAll(async () => {
  stub = await startPChainStub(scenario);
});
afterAll(() => stub.close());

async function call(method: string, params: Record<string, unknown> = {}, path = '/ext/bc/P'): Promise<{ result?: any; error?: { message: string } }> {
  const res = await fetch(`${stub.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: any; error?: { message: string } };
}

describe('the bench P-Chain', () => {
  it('answers at every path avalanchego serves the P-Chain at, /ext/P too (where its Go client posts)', async () => {
    for (const path of ['/ext/bc/P', '/ext/P', `/ext/bc/${primary}`]) {
      expect((await call('platform.getHeight', {}, path)).result).toEqual({ height: String(STUB_HEIGHT) });
    }
  });

  it('answers getAllValidatorsAt with the L1 and the primary network in canonical order, at a height or the proposed one', async () => {
    const set = canonicalSet(
      scenario.validators.map((v) => ({ nodeId: v.nodeId, weight: v.weight, publicKey: hexToBytes(v.publicKeyHex) })),
      loadBackend('blst'),
    );
    const expected = {
      validators: set.validators.map((v) => ({ publicKey: `0x${v.publicKeyHex}`, weight: v.weight.toString(), nodeIDs: v.nodeIds })),
      totalWeight: set.totalWeight.toString(),
    };
    for (const height of [String(STUB_HEIGHT), 'proposed']) {
      const { result } = await call('platform.getAllValidatorsAt', { height });
      expect(Object.keys(result.validatorSets)).toEqual([primary, subnet].sort());
      expect(result.validatorSets[subnet]).toEqual(expected);
      expect(result.validatorSets[primary]).toEqual(expected);
    }
  });

  it('says the subnet is an L1: getSubnet carries the conversion ID of its initial validators', async () => {
    const { result } = await call('platform.getSubnet', { subnetID: subnet });
    const id = conversionId({
      subnetId: scenario.subnetId,
      managerChainId: scenario.blockchainId,
      managerAddress: new Uint8Array(20),
      validators: scenario.validators.map((v) => ({ nodeId: parseNodeId(v.nodeId), blsPublicKey: hexToBytes(v.publicKeyHex), weight: v.weight })),
    });
    expect(result).toMatchObject({ conversionID: cb58Encode(id), managerChainID: cb58Encode(scenario.blockchainId), isPermissioned: false });
    expect((await call('platform.getSubnet', { subnetID: primary })).error?.message).toBe("the primary network isn't a subnet");
  });

  it('lists the L1 validators with their validation IDs and balances, and the same nodes as primary-network validators', async () => {
    const l1 = (await call('platform.getCurrentValidators', { subnetID: subnet })).result.validators;
    expect(l1).toHaveLength(scenario.validators.length);
    expect(l1[2]).toMatchObject({
      nodeID: scenario.validators[2]!.nodeId,
      validationID: cb58Encode(validationIdFromIndex(scenario.subnetId, 2)),
      balance: '1000000000',
    });
    const primaries = (await call('platform.getCurrentValidators', {})).result.validators;
    expect(primaries.map((v: { nodeID: string }) => v.nodeID)).toEqual(scenario.validators.map((v) => v.nodeId));
    expect((await call('platform.getCurrentValidators', { subnetID: cb58Encode(new Uint8Array(32).fill(9)) })).result).toEqual({ validators: [] });
  });
});
