// The relayer's real parts, as `warpgate relay` and `warpgate serve` give them to the service
// (service/relayer.ts takes them as factories so its tests can pass fakes): the engine, the EVM
// source and destination over viem, and the state: the embedded store in relayer.storePath with
// leases always held (one relayer per store: the store's file lock refuses a second), or with
// redis.url the Redis store and a lease per route, so a standby takes over a dead relayer.
import { join } from 'node:path';
import { createRelayer } from '../relayer/engine.js';
import { createEvmDestination, createEvmSource } from '../relayer/evm/index.js';
import { openFileStore } from '../relayer/store/file-store.js';
import { createLocalLeases } from '../relayer/store/local-leases.js';
import { openRedisRelayerState } from '../relayer/store/redis.js';
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
  openState: async (config, logger, events) => {
    const { redis } = config;
    if (redis.url === null) {
      const store = await openFileStore({ path: join(config.relayer.storePath, 'messages.log') });
      return { store, leases: createLocalLeases(), close: () => store.close() };
    }
    const state = await openRedisRelayerState(
      { url: redis.url, keyPrefix: redis.keyPrefix, commandTimeoutMs: redis.commandTimeoutMs, connectTimeoutMs: redis.connectTimeoutMs, lease: { ttlMs: config.relayer.leaseTtlMs } },
      {
        ...events,
        onHealth: (health) => logger.info({ redis: health }, `relayer: Redis ${health.state}`),
      },
    );
    return state;
  },
};
