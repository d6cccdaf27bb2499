// The destination chains' epochs the aggregator signs at (ACP-181): each chain's
// proposervm.getCurrentEpoch, at its `destinations` entry's rpcUrl (or its relayer chain's), or else on upstreams.node at
// /ext/bc/{id}/proposervm, over node/'s one transport (one per URL, bounded by
// validatorSets.nodeTimeoutMs and each request's deadline); the epoch duration D from
// epochs.durationMs or else the node's info.upgrades, remembered once read; both kept by the
// validators' EpochCache.
import type { Logger } from 'pino';
import type { DestinationEpochs } from '../aggregator/aggregator.js';
import type { Config } from '../config/config.js';
import { NodeNotConfiguredError } from '../node/errors.js';
import type { InfoClient } from '../node/info.js';
import { ProposerVmClient } from '../node/proposervm.js';
import { JsonRpcTransport, type NodeCallEvent } from '../node/transport.js';
import { untilAborted } from '../util/abortable.js';
import { EpochCache } from '../validators/epoch-cache.js';
import { parseCb58Id } from '../warp/cb58.js';
import { bytesToHex } from '../warp/hex.js';
import type { NodeClient } from './node-client.js';

/** D: the configured override, else info.upgrades once it has answered (null until then, or before Granite). */
function epochDuration(config: Config, info: InfoClient | undefined, logger: Logger): (signal: AbortSignal) => Promise<number | null> {
  const configured = config.epochs.durationMs;
  if (configured !== null) return () => Promise.resolve(configured);
  if (!info) return () => Promise.resolve(null);
  let known: number | null | undefined;
  let reading: Promise<number | null> | undefined;
  let warned = false;
  return async (signal) => {
    if (known !== undefined) return known;
    reading ??= info.epochDurationMs().then(
      (d) => {
        known = d;
        reading = undefined;
        return d;
      },
      (err: unknown) => {
        reading = undefined;
        // Epochs are then kept epochs.minRefreshMs only; said once, until it is read.
        if (!warned) logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'the epoch duration (info.upgrades) could not be read; destination epochs are re-read every epochs.minRefreshMs until it is');
        warned = true;
        return null;
      },
    );
    return untilAborted(reading, signal).catch(() => null);
  };
}

/**
 * Where each destination's epoch is read: the `destinations` entries, then every relayer chain
 * whose rpcUrl is a chain's JSON-RPC endpoint (`…/ext/bc/{id}/rpc`): its base URL serves
 * `/proposervm` too. Without this a relayer delivering to an L1 would ask upstreams.node, a
 * Primary Network node that does not run the L1 (404).
 */
export function destinationEndpoints(config: Config): { blockchainId: string; rpcUrl: string }[] {
  const listed = new Set(config.destinations.map((d) => d.blockchainId));
  const fromRelayer = config.relayer.chains.flatMap((c) => {
    const base = /^(.*\/ext\/bc\/[^/]+)\/rpc\/?$/.exec(c.rpcUrl)?.[1];
    return base && !listed.has(c.blockchainId) ? [{ blockchainId: c.blockchainId, rpcUrl: base }] : [];
  });
  return [...config.destinations, ...fromRelayer];
}

export function openDestinationEpochs(config: Config, node: NodeClient | null, observe: (event: NodeCallEvent) => void, logger: Logger): DestinationEpochs {
  // One client per configured chain, on a transport of its own (its own URL).
  const configured = new Map(
    destinationEndpoints(config).map((d) => {
      const chainId = parseCb58Id(d.blockchainId, 'destinations');
      const transport = new JsonRpcTransport({ nodeBaseUrl: d.rpcUrl, label: `destination chain ${d.blockchainId}`, timeoutMs: config.validatorSets.nodeTimeoutMs, observe });
      return [bytesToHex(chainId), new ProposerVmClient(transport, chainId, { atChainUrl: true })] as const;
    }),
  );
  const readEpoch = (chainId: Uint8Array, signal: AbortSignal) => {
    const client = configured.get(bytesToHex(chainId)) ?? (node ? new ProposerVmClient(node.transport, chainId) : undefined);
    if (!client) return Promise.reject(new NodeNotConfiguredError('a destination chain that destinations does not list'));
    return client.getCurrentEpoch({ signal });
  };
  return new EpochCache({
    readEpoch,
    epochDurationMs: epochDuration(config, node?.info, logger),
    minRefreshMs: config.epochs.minRefreshMs,
    maxEntries: config.epochs.maxEntries,
  });
}
