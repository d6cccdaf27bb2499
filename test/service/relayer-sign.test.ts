// The relayer's SignMessage over the in-process aggregator. Which validators sign (the set the
// destination verifies against, as avalanchego's predicate check picks it), the quorum (the
// destination's, 0 meaning 67), the height (the destination's epoch): first against a recording
// aggregator, then for real on the devnet, whose L1 chain reports an epoch at a P-Chain height
// where its validator set differs from the current one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AggregationRequest, AggregationResult } from '../../src/aggregator/aggregator.js';
import { createNobleBackend } from '../../src/bls/noble-backend.js';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { PChainClient } from '../../src/node/pchain.js';
import { createLogger } from '../../src/service/logger.js';
import { createSignMessage, signingSubnet } from '../../src/service/relayer-sign.js';
import { verifySignedMessage } from '../../src/validators/verify.js';
import { decodeSigners } from '../../src/warp/bitset.js';
import { idToString, parseCb58Id, PRIMARY_NETWORK_ID, P_CHAIN_ID } from '../../src/warp/cb58.js';
import { bytesTo0xHex, bytesToHex, hexToBytes } from '../../src/warp/hex.js';
import { parseSignedMessage } from '../../src/warp/signed-message.js';
import { newUnsignedMessage } from '../../src/warp/unsigned-message.js';
import { CapturedLog } from '../ops/helpers.js';

const C_CHAIN = new Uint8Array(32).fill(0xc);
const L1_CHAIN = new Uint8Array(32).fill(0x1);
const L1_SUBNET = new Uint8Array(32).fill(0x5);
const OTHER_CHAIN = new Uint8Array(32).fill(0x2);
const OTHER_SUBNET = new Uint8Array(32).fill(0x6);

/** platform.validatedBy of the test's chains. */
const validatedBy = async (chain: Uint8Array): Promise<Uint8Array> => {
  const subnets = new Map([
    [bytesToHex(C_CHAIN), PRIMARY_NETWORK_ID],
    [bytesToHex(L1_CHAIN), L1_SUBNET],
    [bytesToHex(OTHER_CHAIN), OTHER_SUBNET],
  ]);
  const subnet = subnets.get(bytesToHex(chain));
  if (!subnet) throw new Error(`validatedBy asked of ${bytesToHex(chain)}`);
  return subnet;
};

describe('which validators sign a relayed message', () => {
  const choose = (source: Uint8Array, destination: Uint8Array, requirePrimary: boolean) => signingSubnet({ signingSubnetFor: validatedBy }, source, destination, requirePrimary).then(idToString);

  it('a C-Chain message to an L1: the L1’s own validators, unless it requires Primary Network signers', async () => {
    expect(await choose(C_CHAIN, L1_CHAIN, false)).toBe(idToString(L1_SUBNET));
    expect(await choose(C_CHAIN, L1_CHAIN, true)).toBe(idToString(PRIMARY_NETWORK_ID));
  });

  it('a P-Chain message: always the destination’s validators (never validatedBy of the P-Chain)', async () => {
    expect(await choose(P_CHAIN_ID, L1_CHAIN, false)).toBe(idToString(L1_SUBNET));
    expect(await choose(P_CHAIN_ID, L1_CHAIN, true)).toBe(idToString(L1_SUBNET));
    expect(await choose(P_CHAIN_ID, C_CHAIN, false)).toBe(idToString(PRIMARY_NETWORK_ID));
  });

  it('an L1 message: its own subnet’s validators, whatever the destination; C-Chain to C-Chain: the Primary Network', async () => {
    expect(await choose(L1_CHAIN, C_CHAIN, false)).toBe(idToString(L1_SUBNET));
    expect(await choose(L1_CHAIN, OTHER_CHAIN, true)).toBe(idToString(L1_SUBNET));
    expect(await choose(C_CHAIN, C_CHAIN, false)).toBe(idToString(PRIMARY_NETWORK_ID));
  });
});

describe('createSignMessage', () => {
  function recording() {
    const requests: AggregationRequest[] = [];
    const observed: [string, boolean][] = [];
    const sign = createSignMessage({
      aggregate: async (req) => {
        requests.push(req);
        return { signedMessage: new Uint8Array([9, 9]), signers: [0, 3, 4] } as unknown as AggregationResult;
      },
      signingSubnetFor: validatedBy,
      deadlineMs: 5000,
      observe: (route, _ms, ok) => observed.push([route, ok]),
    });
    return { sign, requests, observed };
  }
  const message = bytesTo0xHex(newUnsignedMessage(5, C_CHAIN, new Uint8Array([1, 2, 3])).bytes) as `0x${string}`;

  it('asks for the destination’s quorum (0 meaning 67) at its epoch height, naming it, with no buffer', async () => {
    const { sign, requests, observed } = recording();
    const answer = await sign(message, { blockchainId: idToString(L1_CHAIN), rules: { quorumNumerator: 0, requirePrimaryNetworkSigners: false } });
    expect(answer).toEqual({ signedMessage: '0x0909', signers: 3 });
    await sign(message, { blockchainId: idToString(L1_CHAIN), rules: { quorumNumerator: 80, requirePrimaryNetworkSigners: true } });
    expect(requests.map((r) => [r.quorumPercentage, r.quorumPercentageBuffer, r.pChainHeight, idToString(r.destinationBlockchainId!), idToString(r.signingSubnetId!)])).toEqual([
      [67, 0, 0, idToString(L1_CHAIN), idToString(L1_SUBNET)],
      [80, 0, 0, idToString(L1_CHAIN), idToString(PRIMARY_NETWORK_ID)],
    ]);
    expect(observed).toEqual([
      [`${idToString(C_CHAIN)}->${idToString(L1_CHAIN)}`, true],
      [`${idToString(C_CHAIN)}->${idToString(L1_CHAIN)}`, true],
    ]);
  });

  it('stops waiting when the engine aborts, and reports the failure', async () => {
    const observed: boolean[] = [];
    const sign = createSignMessage({ aggregate: () => new Promise(() => undefined), signingSubnetFor: validatedBy, deadlineMs: 5000, observe: (_r, _ms, ok) => observed.push(ok) });
    const controller = new AbortController();
    const pending = sign(message, { blockchainId: idToString(L1_CHAIN), rules: { quorumNumerator: 67, requirePrimaryNetworkSigners: false } }, controller.signal);
    controller.abort(new Error('relayer stopping'));
    await expect(pending).rejects.toThrow('relayer stopping');
    expect(observed).toEqual([false]);
  });
});

describe('on the devnet', () => {
  const noble = createNobleBackend();
  let devnet: Devnet;
  let pchain: PChainClient;

  beforeAll(async () => {
    devnet = await startDevnet({ validators: 8, port: 0, logger: createLogger('info', new CapturedLog()), configOverrides: { 'aggregation.deadlineMs': 4_000 } });
    pchain = new PChainClient({ nodeBaseUrl: devnet.node.url, timeoutMs: 5_000 });
  }, 120_000);
  afterAll(async () => {
    await devnet?.close();
  });

  it('signs at the destination’s epoch height with its quorum: verifies against that set, and reaches a higher quorum when asked', async () => {
    const { aggregator, sets } = devnet.service;
    const sign = createSignMessage({ aggregate: (r, o) => aggregator.aggregate(r, o), signingSubnetFor: (id, r) => sets.signingSubnetFor(id, r), deadlineMs: 4_000 });
    const subnetId = parseCb58Id(devnet.info.subnetId);
    const epochHeight = devnet.node.epochs.current.pChainHeight;
    const atEpoch = await pchain.getValidatorsAt(epochHeight, subnetId);
    for (const quorum of [67, 90]) {
      const message = `0x${devnet.exampleTeleporterMessageHex(`relayed at ${quorum}`)}` as const;
      const { signedMessage, signers } = await sign(message, { blockchainId: devnet.info.blockchainId, rules: { quorumNumerator: quorum, requirePrimaryNetworkSigners: false } });
      const verified = await verifySignedMessage(hexToBytes(signedMessage), atEpoch, quorum, devnet.info.networkId, noble);
      expect(verified.valid, `quorum ${quorum}: ${verified.reason ?? ""}`).toBe(true);
      expect(verified.signedWeight * 100n >= verified.totalWeight * BigInt(quorum)).toBe(true);
      const parsed = parseSignedMessage(hexToBytes(signedMessage));
      expect(decodeSigners(parsed.signers)).toHaveLength(signers);
      expect(bytesTo0xHex(parsed.unsigned.bytes)).toBe(message);
    }
    // The set at the epoch height is not the current one: signing there is what made it verify.
    const current = await pchain.getCurrentValidators(subnetId);
    expect(current.length).not.toBe(atEpoch.length);
  });
});
