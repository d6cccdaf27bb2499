// Which route a message belongs to, and whether that route relays it. The reasons are what a
// skipped record says and what a refused manual relay answers.
import type { Route } from './options.js';
import type { Hex, SourceMessage } from './ports.js';

/** The route from the message's source chain to its destination chain, if one is configured. */
export function routeOf(routes: readonly Route[], message: SourceMessage): Route | undefined {
  return routes.find((r) => r.sourceBlockchainId === message.sourceBlockchainId && r.destinationBlockchainId === message.destinationBlockchainId);
}

/**
 * Why `route` does not relay `message`, or undefined when it does. `relayerAddresses` are the
 * destination's keys: a message whose non-empty allowedRelayerAddresses names none of them can
 * only be delivered by someone else.
 */
export function skipReason(route: Route, message: SourceMessage, relayerAddresses: readonly Hex[]): string | undefined {
  const origin = message.originSenderAddress.toLowerCase();
  if (route.allowedOriginSenders.size && !route.allowedOriginSenders.has(origin)) return `origin sender ${origin} is not in the route's allowlist`;
  const target = message.destinationAddress.toLowerCase();
  if (route.allowedDestinationAddresses.size && !route.allowedDestinationAddresses.has(target)) {
    return `destination address ${target} is not in the route's allowlist`;
  }
  if (route.maxRequiredGasLimit !== undefined && message.requiredGasLimit > route.maxRequiredGasLimit) {
    return `requiredGasLimit ${message.requiredGasLimit} is above the route's cap ${route.maxRequiredGasLimit}`;
  }
  if (message.allowedRelayerAddresses.length) {
    const ours = new Set(relayerAddresses.map((a) => a.toLowerCase()));
    if (!message.allowedRelayerAddresses.some((a) => ours.has(a.toLowerCase()))) return 'none of our relayer keys is in the message\'s allowedRelayerAddresses';
  }
  return undefined;
}
