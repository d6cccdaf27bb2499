// Turns the two request dialects into one AggregationRequest: Glacier / Data API (camelCase,
// seed 000 section 4.1) and icm-services (kebab-case). Every mistake is a BadRequestError
// naming the field as the client spelled it.
import { WarpFormatError } from '../warp/errors.js';
import { parseId } from '../warp/cb58.js';
import { hexToBytes } from '../warp/hex.js';
import { parseMessageInput } from '../warp/message-input.js';
import type { AggregationRequest } from '../aggregator/aggregator.js';
import { DEFAULT_QUORUM_PERCENTAGE } from '../validators/quorum.js';
import { BadRequestError, HttpError } from './http-errors.js';
import { untilAborted } from '../util/abortable.js';

/** limits.justificationBytes' default. */
export const DEFAULT_MAX_JUSTIFICATION_BYTES = 65_536;

export interface FieldNames {
  message: string;
  justification: string;
  signingSubnetId: string;
  quorumPercentage: string;
  quorumPercentageBuffer: string;
  pChainHeight: string[];
  /** icm-services reads an absent quorum as Go's zero value and treats 0 as the default 67. */
  zeroQuorumMeansDefault: boolean;
}

export const GLACIER_FIELDS: FieldNames = {
  message: 'message',
  justification: 'justification',
  signingSubnetId: 'signingSubnetId',
  quorumPercentage: 'quorumPercentage',
  quorumPercentageBuffer: 'quorumPercentageBuffer',
  pChainHeight: ['pChainHeight'],
  zeroQuorumMeansDefault: false,
};

export const ICM_FIELDS: FieldNames = {
  message: 'message',
  justification: 'justification',
  signingSubnetId: 'signing-subnet-id',
  quorumPercentage: 'quorum-percentage',
  quorumPercentageBuffer: 'quorum-percentage-buffer',
  // icm-services reads pchain-height; its README says p-chain-height. Accept both.
  pChainHeight: ['pchain-height', 'p-chain-height'],
  // Go clients of icm-services send "quorum-percentage": 0 when they mean the default.
  zeroQuorumMeansDefault: true,
};

/** The body's fields before the message is known (a justification alone may determine it). */
export interface ParsedBody {
  messageHex?: string;
  justification: Uint8Array;
  signingSubnetId?: Uint8Array;
  quorumPercentage: number;
  quorumPercentageBuffer: number;
  pChainHeight: number;
}

function optionalHexString(body: Record<string, unknown>, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new BadRequestError(field, 'must be a hex string');
  if (v === '' || v === '0x') return undefined;
  return v;
}

function integerField(body: Record<string, unknown>, field: string, min: number, max: number, fallback: number): number {
  const v = body[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new BadRequestError(field, `must be an integer, got ${JSON.stringify(v)}`);
  if (v < min || v > max) throw new BadRequestError(field, `must be from ${min} to ${max}, got ${v}`);
  return v;
}

function wrap<T>(field: string, f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof WarpFormatError) throw new BadRequestError(field, err.reason + (err.offset === undefined ? '' : ` (${err.what} at byte ${err.offset})`));
    throw err;
  }
}

/** `maxJustificationBytes`: limits.justificationBytes; a longer justification is a 413 naming the field. */
export function parseAggregationBody(body: unknown, names: FieldNames, maxJustificationBytes = DEFAULT_MAX_JUSTIFICATION_BYTES): ParsedBody {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new BadRequestError('body', 'must be a JSON object');
  }
  const b = body as Record<string, unknown>;
  const messageHex = optionalHexString(b, names.message);
  const justificationHex = optionalHexString(b, names.justification);
  if (messageHex === undefined && justificationHex === undefined) {
    throw new BadRequestError(names.message, `either ${names.message} or ${names.justification} must be provided`);
  }
  if (justificationHex !== undefined) {
    // Checked on the text, before decoding: each byte is two hex digits.
    const bytes = Math.ceil(justificationHex.replace(/^0x/i, '').length / 2);
    if (bytes > maxJustificationBytes) {
      throw new HttpError(413, `${names.justification}: is ${bytes} bytes, more than the limit of ${maxJustificationBytes}`);
    }
  }
  const justification = justificationHex === undefined ? new Uint8Array() : wrap(names.justification, () => hexToBytes(justificationHex, names.justification));
  let signingSubnetId: Uint8Array | undefined;
  const subnet = b[names.signingSubnetId];
  if (subnet !== undefined && subnet !== null && subnet !== '') {
    if (typeof subnet !== 'string') throw new BadRequestError(names.signingSubnetId, 'must be a hex or cb58 string');
    signingSubnetId = wrap(names.signingSubnetId, () => parseId(subnet, names.signingSubnetId));
  }
  const givenQuorum = integerField(b, names.quorumPercentage, 0, 100, DEFAULT_QUORUM_PERCENTAGE);
  const quorumPercentage = givenQuorum === 0 && names.zeroQuorumMeansDefault ? DEFAULT_QUORUM_PERCENTAGE : givenQuorum;
  const quorumPercentageBuffer = integerField(b, names.quorumPercentageBuffer, 0, 100, 0);
  if (quorumPercentage + quorumPercentageBuffer > 100) {
    throw new BadRequestError(names.quorumPercentageBuffer, `${names.quorumPercentage} + ${names.quorumPercentageBuffer} must be at most 100, got ${quorumPercentage + quorumPercentageBuffer}`);
  }
  const heightField = names.pChainHeight.find((f) => b[f] !== undefined && b[f] !== null) ?? names.pChainHeight[0]!;
  const pChainHeight = integerField(b, heightField, 0, Number.MAX_SAFE_INTEGER, 0);
  return { messageHex, justification, signingSubnetId, quorumPercentage, quorumPercentageBuffer, pChainHeight };
}

/** The full request, once the message is known. */
export function toAggregationRequest(parsed: ParsedBody, names: FieldNames, messageHex: string): AggregationRequest {
  const message = wrap(names.message, () => parseMessageInput(messageHex, names.message));
  return {
    message,
    justification: parsed.justification,
    signingSubnetId: parsed.signingSubnetId,
    quorumPercentage: parsed.quorumPercentage,
    quorumPercentageBuffer: parsed.quorumPercentageBuffer,
    pChainHeight: parsed.pChainHeight,
  };
}

// A Map, not an object literal: a path value such as `constructor` or `__proto__` must name no
// network rather than an inherited property of Object.prototype.
const NETWORK_IDS: ReadonlyMap<string, number> = new Map([
  ['mainnet', 1],
  ['fuji', 5],
  ['testnet', 5],
]);

/** The network ID a `{network}` path value names; anything else is a 400. */
export function requireNetwork(network: string): number {
  const id = NETWORK_IDS.get(network);
  if (id === undefined) throw new BadRequestError('network', `must be mainnet, fuji or testnet, got '${network}'`);
  return id;
}

/** The `{network}` path value must name the message's network (a configured local network answers on any). */
export function checkNetwork(network: string, messageNetworkId: number, localNetworkId: number | null): void {
  const expected = requireNetwork(network);
  if (messageNetworkId === expected) return;
  if (localNetworkId !== null && messageNetworkId === localNetworkId) return;
  throw new BadRequestError('network', `path names ${network} (network ID ${expected}) but the message is for network ID ${messageNetworkId}`);
}

export function networkIdOf(network: string): number | undefined {
  return NETWORK_IDS.get(network);
}

/** What the service knows of the network it serves. */
export interface ServedNetwork {
  /** A configured local network (the devnet's), accepted under any `{network}` path value. */
  localNetworkId: number | null;
  /** The node's network ID (info.getNetworkID, remembered); absent when no node is configured. */
  nodeNetworkId?: () => Promise<number>;
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
