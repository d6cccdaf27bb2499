// The relayer's real parts, as `warpgate relay` and `warpgate serve` give them to the service
// (service/relayer.ts takes them as factories so its tests can pass fakes): the engine, the EVM
// source and destination over viem, the embedded store in relayer.storePath and its leases,
// which are always held (one relayer per store: the store's file lock refuses a second).
import { join } from 'node:path';
import { createRelayer } from '../relayer/engine.js';
import { createEvmDestination, createEvmSource } from '../relayer/evm/index.js';
import { openFileStore } from '../relayer/store/file-store.js';
import { createLocalLeases } from '../relayer/store/local-leases.js';
import type { RelayerParts } from '../service/relayer.js';

const WEI_PER_GWEI = 1_000_000_000n;

export const RELAYER_PARTS: RelayerParts = {
  createRelayer,
  createSource: (chain, options) =>
    createEvmSource(chain, {
      maxConcurrentRpc: options.rpcConcurrency,
      onInvalidLog: (detail) => options.logger.warn(detail, 'relayer: a SendWarpMessage log of the messenger is not a Teleporter message; skipped'),
    }),
  createDestination: (chain, options) =>
    createEvmDestination(chain, {
      privateKeys: options.keys.map((k) => k.privateKey()),
      ...(options.rewardAddress === null ? {} : { rewardAddress: options.rewardAddress }),
      maxFeePerGasCap: options.maxFeePerGasWei,
      receiptTimeoutMs: options.receiptTimeoutMs,
      maxConcurrentRpc: options.rpcConcurrency,
      lowBalanceWei: options.lowBalanceGwei * WEI_PER_GWEI,
      onLowBalance: (low) => options.onBalance(low.address, low.balance),
    }),
  openStore: (config) => openFileStore({ path: join(config.relayer.storePath, 'messages.log') }),
  leases: () => createLocalLeases(),
};
