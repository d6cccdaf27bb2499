// Turns a request of either dialect into what the aggregator is asked: the POST body (message or
// justification, and the quorum options) and the path and query of GET …/{txHash}. Every mistake
// is a 4xx naming the field as the client spelled it.
import { parseCb58Id } from '../warp/cb58.js';
import { WarpFormatError } from '../warp/errors.js';
import { hexToBytes } from '../warp/hex.js';
import { parseMessageInput } from '../warp/message-input.js';
import type { AggregationRequest } from '../aggregator/aggregator.js';
import type { FieldNames } from './dialects.js';
import { BadRequestError, HttpError, parseField } from './errors.js';
import { requireNetwork } from './network.js';
import { bodyFields, parseQuorumOptions, queryFields, type QuorumOptions } from './quorum-options.js';

/** The body's fields before the message is known (a justification alone may determine it). */
interface ParsedBody extends QuorumOptions {
  messageHex?: string;
  justification: Uint8Array;
}

function optionalHexString(body: Record<string, unknown>, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new BadRequestError(field, 'must be a hex string');
  if (v === '' || v === '0x') return undefined;
  return v;
}

/** `maxJustificationBytes`: limits.justificationBytes; a longer justification is a 413 naming the field. */
export function parseAggregationBody(body: unknown, names: FieldNames, maxJustificationBytes: number): ParsedBody {
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
  const justification = justificationHex === undefined ? new Uint8Array() : parseField(names.justification, () => hexToBytes(justificationHex, names.justification));
  return { messageHex, justification, ...parseQuorumOptions(bodyFields(b), names) };
}

/** The full request, once the message is known. */
export function toAggregationRequest(parsed: ParsedBody, names: FieldNames, messageHex: string): AggregationRequest {
  const message = parseField(names.message, () => parseMessageInput(messageHex, names.message));
  return {
    message,
    justification: parsed.justification,
    signingSubnetId: parsed.signingSubnetId,
    quorumPercentage: parsed.quorumPercentage,
    quorumPercentageBuffer: parsed.quorumPercentageBuffer,
    pChainHeight: parsed.pChainHeight,
    ...(parsed.destinationBlockchainId ? { destinationBlockchainId: parsed.destinationBlockchainId } : {}),
  };
}

/** GET …/aggregateSignatures/{txHash}: the transaction and the quorum options of its query. */
interface TxRequest {
  /** The network the path names. */
  networkId: number;
  txId: Uint8Array;
  options: QuorumOptions;
}

export function parseTxRequest(network: string, txHash: string, query: Record<string, unknown>, names: FieldNames): TxRequest {
  const networkId = requireNetwork(network);
  let txId: Uint8Array;
  try {
    txId = parseCb58Id(txHash, 'txHash');
  } catch (err) {
    if (err instanceof WarpFormatError) throw new BadRequestError('txHash', `must be a cb58 transaction ID: ${err.reason}`);
    throw err;
  }
  return { networkId, txId, options: parseQuorumOptions(queryFields(query), names) };
}
