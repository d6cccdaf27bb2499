// Accepted on chain, both directions. A message is signed at the destination's epoch P-Chain
// height (ACP-181: the height a receiving chain verifies at, which stays fixed for the epoch)
// and delivered in a transaction that carries it as the Warp predicate (access list) and calls
// a contract that reverts unless getVerifiedWarpMessage(0) says valid; the same message with one
// signature byte changed is refused. C-Chain → L1 is signed by the L1's validators (the L1 does
// not require Primary Network signers); L1 → C-Chain by the L1's, at the C-Chain's epoch, after
// the registration test changed the L1's set.
import { AbiFunction, Hex } from 'ox';
import { describe, expect, inject, it } from 'vitest';
import { hexToBytes } from '../../src/warp/index.js';
import { postJson } from '../ops/helpers.js';
import { sendTransaction, sendWarpMessage, warpCheckInitCode, warpPredicate, WARP_PRECOMPILE, type Receipt } from './evm.js';
import { acceptedEverywhere, avalancheVerdict, rpc, warpgateForThisFile } from './helpers.js';
import type { FundedKey } from './paths.js';

const net = inject('interopNetwork');
const warpgate = warpgateForThisFile(net);

interface Chain {
  name: string;
  /** The chain's path under a node's /ext/bc/. */
  alias: string;
  rpcUrl: string;
  evmChainId: number;
  proposervmUrl: string;
}

const cChain: Chain = { name: 'C-Chain', alias: 'C', rpcUrl: net.cChain.rpcUrl, evmChainId: net.cChain.evmChainId, proposervmUrl: `${net.nodes[0]!.uri}/ext/bc/C/proposervm` };
const l1: Chain = { name: 'L1', alias: net.l1.blockchainId, rpcUrl: net.l1.rpcUrl, evmChainId: net.l1.evmChainId, proposervmUrl: `${net.l1.validators[0]!.uri}/ext/bc/${net.l1.blockchainId}/proposervm` };

async function epochHeight(chain: Chain): Promise<number> {
  return Number((await rpc<{ pChainHeight: string }>(chain.proposervmUrl, 'proposervm.getCurrentEpoch')).pChainHeight);
}

async function emit(chain: Chain, key: FundedKey, text: string): Promise<Hex.Hex> {
  const receipt = await sendTransaction(chain.rpcUrl, chain.evmChainId, key, {
    to: WARP_PRECOMPILE,
    data: AbiFunction.encodeData(sendWarpMessage, [Hex.fromString(text)]),
  });
  expect(receipt.status).toBe('0x1');
  await acceptedEverywhere(net, chain.alias, BigInt(receipt.blockNumber));
  return receipt.logs.find((l) => l.address.toLowerCase() === WARP_PRECOMPILE)!.data;
}

async function deliver(chain: Chain, key: FundedKey, contract: Hex.Hex, signed: Uint8Array): Promise<Receipt> {
  return sendTransaction(chain.rpcUrl, chain.evmChainId, key, { to: contract, data: '0x', gas: 500_000n, accessList: warpPredicate(signed) });
}

/**
 * Signs `logData` for `destination` at its epoch height and delivers it. The epoch can end
 * between the two (its height then moves, and with it the set the chain verifies against), as
 * a relayer also finds: then it is signed and delivered once more at the new epoch.
 */
async function signAndDeliver(destination: Chain, key: FundedKey, contract: Hex.Hex, logData: Hex.Hex): Promise<{ signed: Uint8Array; receipt: Receipt; height: number }> {
  for (let attempt = 1; ; attempt++) {
    const height = await epochHeight(destination);
    const res = await postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: logData, signingSubnetId: net.l1.subnetId, pChainHeight: height });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Number(res.headers.get('x-warpgate-pchain-height'))).toBe(height);
    const verdict = avalancheVerdict(net, res.body.signedMessage, height, { subnet: net.l1.subnetId });
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true, subnetId: net.l1.subnetId });
    const signed = hexToBytes(res.body.signedMessage);
    const receipt = await deliver(destination, key, contract, signed);
    if (receipt.status === '0x1' || attempt === 2 || (await epochHeight(destination)) === height) return { signed, receipt, height };
  }
}

async function deployWarpCheck(chain: Chain, key: FundedKey): Promise<Hex.Hex> {
  const receipt = await sendTransaction(chain.rpcUrl, chain.evmChainId, key, { data: warpCheckInitCode(), gas: 200_000n });
  expect(receipt.status).toBe('0x1');
  return receipt.contractAddress!;
}

/** One signature byte changed (the last, so the signers bitset stays as it was). */
function withChangedSignatureByte(signed: Uint8Array): Uint8Array {
  const copy = signed.slice();
  copy[copy.length - 1] = copy[copy.length - 1]! ^ 0x01;
  return copy;
}

describe('accepted on chain', () => {
  it('C-Chain → L1: signed by the L1 at its epoch height, accepted by the L1; a changed signature byte is refused', async () => {
    const key = net.funded[1]!;
    const contract = await deployWarpCheck(l1, key);
    const logData = await emit(cChain, key, 'warpgate interop: C-Chain to L1');
    const { signed, receipt } = await signAndDeliver(l1, key, contract, logData);
    expect(receipt.status, 'the L1 accepted the predicate').toBe('0x1');
    expect((await deliver(l1, key, contract, withChangedSignatureByte(signed))).status, 'the L1 refused the changed signature').toBe('0x0');
  });

  it('L1 → C-Chain: signed by the L1 at the C-Chain epoch height, accepted by the C-Chain; a changed signature byte is refused', async () => {
    const key = net.funded[2]!;
    const contract = await deployWarpCheck(cChain, key);
    const logData = await emit(l1, key, 'warpgate interop: L1 to C-Chain');
    const { signed, receipt } = await signAndDeliver(cChain, key, contract, logData);
    expect(receipt.status, 'the C-Chain accepted the predicate').toBe('0x1');
    expect((await deliver(cChain, key, contract, withChangedSignatureByte(signed))).status, 'the C-Chain refused the changed signature').toBe('0x0');
  });
});
