// A destination chain: its Warp rules (eth_getChainConfig), Teleporter's messageReceived, and the
// delivery transactions (deliver.ts) paid by one or more keys, each with its own nonce sequence.
import { decodeFunctionResult, encodeFunctionData } from 'viem';
import type { Hex, MessageDestination, WarpRules } from '../ports.js';
import { TELEPORTER_MESSENGER_ABI } from './abi.js';
import { checkChain, createRpc, type EvmChain, type RpcOptions } from './chain.js';
import { deliver, type DeliveryContext } from './deliver.js';
import { bumpPermille, type FeePolicy } from './fees.js';
import { warpGasScheduleOf, type WarpGasSchedule } from './gas.js';
import { deliveryAccounts } from './keys.js';
import { NonceManager } from './nonces.js';
import { nextWarpUpgradeAt, warpRulesFromChainConfig } from './warp-rules.js';

export interface LowBalance {
  readonly address: Hex;
  readonly balance: bigint;
  /** What a delivery needed (gasLimit × maxFeePerGas), or the configured threshold. */
  readonly needed: bigint;
}

export interface EvmDestinationOptions extends RpcOptions, FeePolicy {
  /** The delivery keys (hex). Held in memory only, never logged. */
  readonly privateKeys: readonly string[];
  /** Where Teleporter credits relayer rewards (default: each delivering key's address). */
  readonly rewardAddress?: Hex;
  /** How long a submission may stay unmined before it is replaced with higher fees (default 30 s). */
  readonly receiptTimeoutMs?: number;
  /** Receipt polling interval (default 500 ms). */
  readonly pollIntervalMs?: number;
  /** Receipt waits at the fee cap before the message goes back to the engine (default 2). */
  readonly waitsAtCap?: number;
  /** A key holding less (wei) is reported by `balances()` through onLowBalance. */
  readonly lowBalanceWei?: bigint;
  /** A key short of funds: for a delivery that needed more, or under lowBalanceWei. */
  onLowBalance?(detail: LowBalance): void;
  /** How long the chain config is trusted before it is read again (default 5 min; a scheduled Warp upgrade reads it at its time). */
  readonly chainConfigTtlMs?: number;
}

export interface EvmDestination extends MessageDestination {
  /** Each key's balance (latest), reporting keys under lowBalanceWei through onLowBalance. */
  balances(signal?: AbortSignal): Promise<{ readonly address: Hex; readonly balance: bigint }[]>;
}

interface ChainRules {
  readonly rules: WarpRules;
  readonly schedule: WarpGasSchedule;
  readonly until: number;
}

export function createEvmDestination(chain: EvmChain, options: EvmDestinationOptions): EvmDestination {
  const { teleporterAddress } = checkChain(chain);
  bumpPermille(options); // a bad bumpPercent fails at construction, not at the first delivery
  if (options.maxFeePerGasCap <= 0n) throw new RangeError('maxFeePerGasCap must be positive');
  const accounts = deliveryAccounts(options.privateKeys);
  const { request } = createRpc(chain.rpcUrl, options);
  const ttl = options.chainConfigTtlMs ?? 5 * 60_000;

  let rulesCache: Promise<ChainRules> | undefined;
  let rulesUntil = 0;
  function chainRules(signal?: AbortSignal): Promise<ChainRules> {
    if (!rulesCache || Date.now() >= rulesUntil) {
      rulesCache = (async () => {
        const config = await request<unknown>('eth_getChainConfig', [], signal);
        const now = Date.now();
        const nowSeconds = Math.floor(now / 1000);
        const upgradeAt = nextWarpUpgradeAt(config, nowSeconds);
        const until = Math.min(now + ttl, upgradeAt === undefined ? Infinity : upgradeAt * 1000);
        return { rules: warpRulesFromChainConfig(config, nowSeconds), schedule: warpGasScheduleOf(config, nowSeconds), until };
      })();
      rulesUntil = Infinity;
      rulesCache.then(
        (r) => (rulesUntil = r.until),
        () => (rulesUntil = 0), // a failure is not cached
      );
    }
    return rulesCache;
  }

  let chainIdCache: Promise<number> | undefined;
  const chainId = (signal?: AbortSignal): Promise<number> => {
    chainIdCache ??= request<Hex>('eth_chainId', [], signal).then((id) => Number(BigInt(id)));
    chainIdCache.catch(() => (chainIdCache = undefined));
    return chainIdCache;
  };

  async function messageReceived(id: Hex, signal?: AbortSignal): Promise<boolean> {
    const data = encodeFunctionData({ abi: TELEPORTER_MESSENGER_ABI, functionName: 'messageReceived', args: [id] });
    const result = await request<Hex>('eth_call', [{ to: teleporterAddress, data }, 'latest'], signal);
    return decodeFunctionResult({ abi: TELEPORTER_MESSENGER_ABI, functionName: 'messageReceived', data: result });
  }

  const nonces = new NonceManager(async (address) => Number(BigInt(await request<Hex>('eth_getTransactionCount', [address, 'pending']))));
  const context: DeliveryContext = {
    request,
    chainId,
    gasSchedule: async (signal) => (await chainRules(signal)).schedule,
    messageReceived,
    teleporterAddress,
    accounts,
    nonces,
    fees: options,
    rewardAddress: options.rewardAddress,
    receiptTimeoutMs: options.receiptTimeoutMs ?? 30_000,
    pollIntervalMs: options.pollIntervalMs ?? 500,
    waitsAtCap: options.waitsAtCap ?? 2,
    inFlight: new Map(),
    onLowBalance: options.onLowBalance ? (detail) => options.onLowBalance!(detail) : undefined,
  };
  const addresses = accounts.map((a) => a.address.toLowerCase() as Hex);

  return {
    blockchainId: chain.blockchainId,
    warpRules: async (signal) => (await chainRules(signal)).rules,
    messageReceived,
    relayerAddresses: () => addresses,
    deliver: (message, signedMessage, deliverOptions) => deliver(context, message, signedMessage, deliverOptions),
    async balances(signal) {
      const out = await Promise.all(addresses.map(async (address) => ({ address, balance: BigInt(await request<Hex>('eth_getBalance', [address, 'latest'], signal)) })));
      const threshold = options.lowBalanceWei;
      if (threshold !== undefined) for (const b of out) if (b.balance < threshold) options.onLowBalance?.({ ...b, needed: threshold });
      return out;
    },
  };
}
