import { encodeFunctionData, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { TELEPORTER_MESSENGER_ABI } from '../../../src/relayer/evm/abi.js';
import { deliveryGas, GRANITE_WARP_GAS, PRE_GRANITE_WARP_GAS, warpGasScheduleOf } from '../../../src/relayer/evm/gas.js';
import { packPredicate, predicateChunks, unpackPredicate, warpAccessList } from '../../../src/relayer/evm/predicate.js';
import { hexToBytes } from '../../../src/warp/index.js';
import { warpPredicate } from '../../interop/evm.js';
import { signedFixture } from './fixtures.js';

describe('the Warp predicate', () => {
  it('is the bytes, a 0xff delimiter and zero padding, in 32-byte keys, even at an exact multiple of 32', () => {
    expect(packPredicate(new Uint8Array(31).fill(1))).toEqual([`0x${'01'.repeat(31)}ff`]);
    expect(packPredicate(new Uint8Array(32).fill(1))).toEqual([`0x${'01'.repeat(32)}`, `0xff${'00'.repeat(31)}`]);
    expect(packPredicate(new Uint8Array(0))).toEqual([`0xff${'00'.repeat(31)}`]);
    expect([0, 1, 31, 32, 33, 63, 64].map(predicateChunks)).toEqual([1, 1, 1, 2, 2, 2, 3]);
  });

  it('round-trips, and refuses keys that are not a packing', () => {
    for (const length of [0, 1, 31, 32, 33, 500]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 7 + 3) % 256);
      expect(unpackPredicate(packPredicate(bytes))).toEqual(bytes);
    }
    expect(unpackPredicate([`0x${'00'.repeat(32)}`])).toBeNull();
    expect(unpackPredicate([`0x${'01'.repeat(32)}`])).toBeNull();
    expect(unpackPredicate([`0xff${'00'.repeat(31)}`, `0x${'00'.repeat(32)}`])).toBeNull();
  });

  it('is the same access list as the interop tests’ own packing that avalanchego accepted', () => {
    const { signed } = signedFixture({ signers: 5 });
    expect(warpAccessList(signed)).toEqual(warpPredicate(hexToBytes(signed)).map((t) => ({ address: t.address.toLowerCase(), storageKeys: t.storageKeys })));
  });
});

// What the destination charges, restated from avalanchego's EVMs (core/state_transition.go
// IntrinsicGas with a predicate in place of access-list gas; precompile/contracts/warp
// PredicateGas and getVerifiedWarpMessage) independently of src/relayer/evm/gas.ts.
function chargedByChain(schedule: 'granite' | 'pre-granite', signedBytes: number, signers: number, calldata: Hex) {
  const [base, perSigner, perChunk, getBase] = schedule === 'granite' ? [125_000, 250, 512, 750] : [200_000, 500, 3_200, 2];
  const chunks = Math.ceil((signedBytes + 1) / 32);
  const data = hexToBytes(calldata);
  const calldataGas = data.reduce((sum, b) => sum + (b === 0 ? 4 : 16), 0);
  return BigInt(21_000 + calldataGas + base + perSigner * signers + perChunk * chunks + getBase + perChunk * chunks);
}

describe('the delivery gas limit', () => {
  const calldata = encodeFunctionData({ abi: TELEPORTER_MESSENGER_ABI, functionName: 'receiveCrossChainMessage', args: [0, `0x${'12'.repeat(20)}`] });

  for (const [name, schedule] of [['granite', GRANITE_WARP_GAS], ['pre-granite', PRE_GRANITE_WARP_GAS]] as const) {
    it(`leaves Teleporter its requiredGasLimit (EIP-150's 64/63) and its bookkeeping at 1,000 and 10,000 signers (${name})`, () => {
      for (const signers of [1, 1_000, 10_000]) {
        for (const payload of [0, 2_000, 20_000]) {
          const { message, signed } = signedFixture({ signers, message: { message: new Uint8Array(payload).fill(5), requiredGasLimit: 2_000_000n } });
          const signedBytes = hexToBytes(signed).length;
          const gas = deliveryGas({
            schedule, signers, requiredGasLimit: message.requiredGasLimit, signedMessageBytes: signedBytes,
            unsignedMessageBytes: hexToBytes(message.unsignedMessage).length, receiptCount: message.receiptCount, calldata,
          });
          const leftForTeleporter = gas.total - chargedByChain(name, signedBytes, signers, calldata);
          // The receiver gets requiredGasLimit only if 64/63 of it is left at the CALL, after
          // Teleporter's own ~250k of storage writes and its per-byte copying of the message.
          const teleporterNeeds = (message.requiredGasLimit * 64n) / 63n + 250_000n + 35n * BigInt(hexToBytes(message.unsignedMessage).length);
          expect(leftForTeleporter, `${signers} signers, ${payload}-byte payload`).toBeGreaterThanOrEqual(teleporterNeeds);
        }
      }
    });
  }

  it('grows with each receipt a message carries and each signer', () => {
    const { message, signed } = signedFixture({ signers: 10 });
    const input = { schedule: GRANITE_WARP_GAS, signers: 10, requiredGasLimit: message.requiredGasLimit, signedMessageBytes: hexToBytes(signed).length, unsignedMessageBytes: 300, receiptCount: 0, calldata };
    const none = deliveryGas(input).total;
    expect(deliveryGas({ ...input, receiptCount: 5 }).total - none).toBe(5n * 40_000n);
    expect(deliveryGas({ ...input, signers: 11 }).total - none).toBe(250n);
  });

  it('takes the Granite prices once the chain config says Granite is active', () => {
    expect(warpGasScheduleOf({ graniteTimestamp: 1_000 }, 1_000)).toBe(GRANITE_WARP_GAS);
    expect(warpGasScheduleOf({ graniteTimestamp: 1_001 }, 1_000)).toBe(PRE_GRANITE_WARP_GAS);
    expect(warpGasScheduleOf({}, 1_000)).toBe(PRE_GRANITE_WARP_GAS);
  });
});
