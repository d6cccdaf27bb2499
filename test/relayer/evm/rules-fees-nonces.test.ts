import { describe, expect, it } from 'vitest';
import { bumpedFees, FeeCapError, initialFees } from '../../../src/relayer/evm/fees.js';
import { NonceManager } from '../../../src/relayer/evm/nonces.js';
import { nextWarpUpgradeAt, warpRulesFromChainConfig, WarpRulesError } from '../../../src/relayer/evm/warp-rules.js';

describe('Warp rules from eth_getChainConfig', () => {
  // The shapes subnet-evm v1.14.2 and coreth answered on the interop network.
  const subnetEvm = { chainId: 99999, graniteTimestamp: 1, warpConfig: { blockTimestamp: 1795866980, quorumNumerator: 67, requirePrimaryNetworkSigners: false }, upgrades: {} };
  const coreth = { chainId: 88888, apricotPhase1BlockTimestamp: 1, graniteTimestamp: 1 };

  it('reads the genesis warpConfig, 0 meaning 67', () => {
    expect(warpRulesFromChainConfig(subnetEvm, 1795866980)).toEqual({ quorumNumerator: 67, requirePrimaryNetworkSigners: false });
    expect(warpRulesFromChainConfig({ warpConfig: { blockTimestamp: 0, quorumNumerator: 0, requirePrimaryNetworkSigners: true } }, 5)).toEqual({ quorumNumerator: 67, requirePrimaryNetworkSigners: true });
  });

  it('takes the latest activated precompile upgrade, and says when the next one comes', () => {
    const config = {
      warpConfig: { blockTimestamp: 0, quorumNumerator: 67 },
      upgrades: { precompileUpgrades: [{ warpConfig: { blockTimestamp: 100, quorumNumerator: 80, requirePrimaryNetworkSigners: true } }, { feeManagerConfig: { blockTimestamp: 150 } }, { warpConfig: { blockTimestamp: 200, quorumNumerator: 90 } }] },
    };
    expect(warpRulesFromChainConfig(config, 99)).toEqual({ quorumNumerator: 67, requirePrimaryNetworkSigners: false });
    expect(warpRulesFromChainConfig(config, 150)).toEqual({ quorumNumerator: 80, requirePrimaryNetworkSigners: true });
    expect(warpRulesFromChainConfig(config, 200)).toEqual({ quorumNumerator: 90, requirePrimaryNetworkSigners: false });
    expect(nextWarpUpgradeAt(config, 150)).toBe(200);
    expect(nextWarpUpgradeAt(config, 200)).toBeUndefined();
  });

  it('knows the C-Chain by its Apricot upgrades: 67, no primary-signers flag', () => {
    expect(warpRulesFromChainConfig(coreth, 10)).toEqual({ quorumNumerator: 67, requirePrimaryNetworkSigners: false });
  });

  it('refuses a chain without Warp, with Warp disabled or not yet active, or a quorum out of range', () => {
    expect(() => warpRulesFromChainConfig({ chainId: 1, graniteTimestamp: 1 }, 10)).toThrow(WarpRulesError);
    expect(() => warpRulesFromChainConfig({ warpConfig: { blockTimestamp: 100 } }, 10)).toThrow(/not active yet/);
    expect(() => warpRulesFromChainConfig({ warpConfig: { blockTimestamp: 0 }, upgrades: { precompileUpgrades: [{ warpConfig: { blockTimestamp: 5, disable: true } }] } }, 10)).toThrow(/disabled/);
    expect(() => warpRulesFromChainConfig({ warpConfig: { blockTimestamp: 0, quorumNumerator: 20 } }, 10)).toThrow(/outside/);
    expect(() => warpRulesFromChainConfig('nope', 10)).toThrow(WarpRulesError);
  });
});

describe('fees', () => {
  const policy = { maxFeePerGasCap: 100n, bumpPercent: 12.5 };
  it('offers twice the base fee plus the tip, within the cap', () => {
    expect(initialFees(20n, 5n, policy)).toEqual({ maxFeePerGas: 45n, maxPriorityFeePerGas: 5n });
    expect(initialFees(60n, 5n, policy)).toEqual({ maxFeePerGas: 100n, maxPriorityFeePerGas: 5n });
    expect(() => initialFees(101n, 5n, policy)).toThrow(FeeCapError);
  });
  it('raises both fees by the bump (rounded up), to what the chain wants now if more, and stops at the cap', () => {
    expect(bumpedFees({ maxFeePerGas: 40n, maxPriorityFeePerGas: 8n }, { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n }, policy)).toEqual({ maxFeePerGas: 45n, maxPriorityFeePerGas: 9n });
    expect(bumpedFees({ maxFeePerGas: 40n, maxPriorityFeePerGas: 8n }, { maxFeePerGas: 70n, maxPriorityFeePerGas: 20n }, policy)).toEqual({ maxFeePerGas: 70n, maxPriorityFeePerGas: 20n });
    expect(bumpedFees({ maxFeePerGas: 90n, maxPriorityFeePerGas: 8n }, { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n }, policy)).toBeNull();
    expect(() => bumpedFees({ maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }, { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }, { ...policy, bumpPercent: 10 })).toThrow(RangeError);
  });
});

describe('nonces, one sequence per key', () => {
  const A = '0x000000000000000000000000000000000000000a';
  const B = '0x000000000000000000000000000000000000000b';
  it('start from the chain, count locally per key, and reuse a nonce handed back first', async () => {
    const chain = new Map([[A, 5], [B, 0]]);
    let fetches = 0;
    const nonces = new NonceManager(async (a) => (fetches++, chain.get(a)!));
    expect(await Promise.all([nonces.take(A), nonces.take(A), nonces.take(B), nonces.take(A)])).toEqual([5, 6, 0, 7]);
    expect(fetches).toBe(2);
    nonces.release(A, 6);
    expect(await nonces.take(A)).toBe(6);
    expect(await nonces.take(A)).toBe(8);
    nonces.release(A, 8); // the last one: the sequence steps back
    expect(await nonces.take(A)).toBe(8);
  });
  it('skip a nonce a resumed submission claims, and resync on "nonce too low"', async () => {
    const chain = new Map([[A, 3]]);
    const nonces = new NonceManager(async (a) => chain.get(a)!);
    nonces.claim(A, 3);
    expect(await nonces.take(A)).toBe(4);
    nonces.unclaim(A, 3);
    nonces.release(A, 4);
    chain.set(A, 10);
    await nonces.resync(A);
    expect(await nonces.take(A)).toBe(10);
  });
});
