// The network rule of the aggregation endpoints: which network a `{network}` path value names,
// and whether this service can serve a message's network at all.
import { untilAborted } from '../util/abortable.js';
import { BadRequestError } from './errors.js';
import { quoteValue } from '../util/peer-text.js';

// A Map, not an object literal: a path value such as `constructor` or `__proto__` must name no
// network rather than an inherited property of Object.prototype.
const NETWORK_IDS: ReadonlyMap<string, number> = new Map([
  ['mainnet', 1],
  ['fuji', 5],
  ['testnet', 5],
]);

/** The `{network}` path values the aggregation endpoints accept (the OpenAPI document lists them). */
export const NETWORK_NAMES: readonly string[] = [...NETWORK_IDS.keys()];

/** The network ID a `{network}` path value names; anything else is a 400. */
export function requireNetwork(network: string): number {
  const id = NETWORK_IDS.get(network);
  if (id === undefined) throw new BadRequestError('network', `must be mainnet, fuji or testnet, got ${quoteValue(network)}`);
  return id;
}

/** The `{network}` path value must name the message's network (a configured local network answers on any). */
function checkNetwork(network: string, messageNetworkId: number, localNetworkId: number | null): void {
  const expected = requireNetwork(network);
  if (messageNetworkId === expected) return;
  if (localNetworkId !== null && messageNetworkId === localNetworkId) return;
  throw new BadRequestError('network', `path names ${network} (network ID ${expected}) but the message is for network ID ${messageNetworkId}`);
}

/** What the service knows of the network it serves. */
export interface ServedNetwork {
  /** A configured local network (the devnet's), accepted under any `{network}` path value. */
  localNetworkId: number | null;
  /** The node's network ID (info.getNetworkID, remembered); absent when no node is configured. */
  nodeNetworkId?: () => Promise<number>;
}

/** The network a message the service builds is for: a configured local network wins (the devnet). */
export function networkIdForPath(network: string, served: ServedNetwork): number | undefined {
  return served.localNetworkId ?? NETWORK_IDS.get(network);
}

/**
 * The network rule of both dialects, checked before any validator is asked. The message must be
 * for a network this service serves, the configured local one or its node's: validators sign only
 * for their own network (avalanchego's Warp signer refuses any other network ID), so asking them
 * would cost them work and the client a 503 for what is a mistake in the request. The Glacier
 * dialect also names a network in its path (`pathNetwork`), which must be the message's.
 */
export async function checkMessageNetwork(messageNetworkId: number, served: ServedNetwork, pathNetwork?: string, signal?: AbortSignal): Promise<void> {
  if (pathNetwork !== undefined) checkNetwork(pathNetwork, messageNetworkId, served.localNetworkId);
  if (served.localNetworkId !== null && messageNetworkId === served.localNetworkId) return;
  // Without a node no validator set can be read; the aggregator answers that.
  if (!served.nodeNetworkId) return;
  // The request's deadline bounds the one lookup (remembered once it succeeds).
  const nodeNetworkId = await untilAborted(served.nodeNetworkId(), signal);
  if (messageNetworkId === nodeNetworkId) return;
  throw new BadRequestError('message', `is for network ID ${messageNetworkId}, but this service's validators are on network ID ${nodeNetworkId}`);
}
