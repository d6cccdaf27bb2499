// Epochs (ACP-181): after 40's RegisterL1ValidatorTx changed the L1's set, an L1 message bound for
// the C-Chain is signed at the height the C-Chain verifies it at, its current epoch's P-Chain
// height, which warpgate reads itself (proposervm.getCurrentEpoch) given only the destination:
// no explicit pChainHeight. That epoch was sealed before the registration (nothing makes C-Chain
// blocks between 20 and here, and an epoch only moves on with a block), so it holds the L1's old
// set of three, while the P-Chain's current set has four: the message is signed by the old set,
// and avalanchego accepts it at the epoch height.
import { AbiFunction, Hex } from 'ox';
import { describe, expect, inject, it } from 'vitest';
import { postJson } from '../ops/helpers.js';
import { sendTransaction, sendWarpMessage, WARP_PRECOMPILE } from './evm.js';
import { avalancheVerdict, pChainHeight, rpc, warpgateForThisFile } from './helpers.js';

const net = inject('interopNetwork');
const warpgate = warpgateForThisFile(net);

async function l1ValidatorsAt(height: number): Promise<number> {
  // Current nodes answer a bare map of NodeID to {publicKey, weight}.
  const res = await rpc<Record<string, unknown>>(net.pChainUrl, 'platform.getValidatorsAt', { height: String(height), subnetID: net.l1.subnetId });
  return Object.keys(res).length;
}

describe('epochs', () => {
  it('an L1 message to the C-Chain is signed at the C-Chain epoch height warpgate reads itself, with the set from before the registration', async () => {
    const epoch = await rpc<{ pChainHeight: string }>(`${net.nodes[0]!.uri}/ext/bc/C/proposervm`, 'proposervm.getCurrentEpoch');
    const epochHeight = Number(epoch.pChainHeight);
    const current = await pChainHeight(net);
    // The situation the case is about: the registration changed the L1's set after the epoch was sealed.
    expect(await l1ValidatorsAt(epochHeight), 'the L1 set at the C-Chain epoch height').toBe(3);
    expect(await l1ValidatorsAt(current), 'the L1 set now').toBe(4);

    const key = net.funded[3]!;
    const receipt = await sendTransaction(net.l1.rpcUrl, net.l1.evmChainId, key, {
      to: WARP_PRECOMPILE,
      data: AbiFunction.encodeData(sendWarpMessage, [Hex.fromString('warpgate interop: L1 to C-Chain, at its epoch')]),
    });
    expect(receipt.status).toBe('0x1');
    const logData = receipt.logs.find((l) => l.address.toLowerCase() === WARP_PRECOMPILE)!.data;

    const res = await postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: logData, destinationBlockchainId: net.cChain.blockchainId });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get('x-warpgate-pchain-height-source')).toBe('epoch');
    expect(Number(res.headers.get('x-warpgate-pchain-height'))).toBe(epochHeight);
    // Still the same epoch: nothing built a C-Chain block meanwhile.
    expect(Number((await rpc<{ pChainHeight: string }>(`${net.nodes[0]!.uri}/ext/bc/C/proposervm`, 'proposervm.getCurrentEpoch')).pChainHeight)).toBe(epochHeight);

    const verdict = avalancheVerdict(net, res.body.signedMessage, epochHeight, { subnet: net.l1.subnetId });
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true, subnetId: net.l1.subnetId, sourceChainId: net.l1.blockchainId });
    // Checked against the old set: the converted validators' weight alone, without the registered one.
    expect(verdict.totalWeight).toBe(net.l1.validators.reduce((sum, v) => sum + Number(v.weight), 0));
  });
});
