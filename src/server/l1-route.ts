// The HTTP side of P-Chain L1 messages (l1/messages.ts builds them): the path and query of
// GET …/aggregateSignatures/{txHash}, validated as the POST body's fields are, and the
// aggregation request a built message becomes.
import type { AggregationRequest } from '../aggregator/aggregator.js';
import { messageOfJustification, messageOfTransaction, type PChainL1Message } from '../l1/messages.js';
import type { PChainClient } from '../node/pchain.js';
import { untilAborted } from '../util/abortable.js';
import { parseCb58Id, parseId } from '../warp/cb58.js';
import { WarpFormatError } from '../warp/errors.js';
import { newPChainMessage } from '../warp/l1-messages.js';
import type { L1MessageBuilder } from './app.js';
import { networkIdOf, type ParsedBody } from './aggregation-request.js';
import { BadRequestError } from './http-errors.js';

/** The options of GET …/aggregateSignatures/{txHash}, validated as the POST body's fields are. */
type TxQuery = Omit<ParsedBody, 'messageHex' | 'justification'>;

function singleQueryValue(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw new BadRequestError(name, 'must be given once, as a single value');
  return v;
}

function queryInteger(query: Record<string, unknown>, name: string, min: number, max: number, fallback: number): number {
  const text = singleQueryValue(query, name);
  if (text === undefined) return fallback;
  if (!/^-?\d+$/.test(text)) throw new BadRequestError(name, `must be an integer, got '${text}'`);
  const v = Number(text);
  if (v < min || v > max) throw new BadRequestError(name, `must be from ${min} to ${max}, got ${text}`);
  return v;
}

function parseTxQuery(query: Record<string, unknown>): TxQuery {
  const subnet = singleQueryValue(query, 'signingSubnetId');
  let signingSubnetId: Uint8Array | undefined;
  if (subnet !== undefined) {
    try {
      signingSubnetId = parseId(subnet, 'signingSubnetId');
    } catch (err) {
      if (err instanceof WarpFormatError) throw new BadRequestError('signingSubnetId', `must be a 32-byte ID in hex or cb58: ${err.reason}`);
      throw err;
    }
  }
  const quorumPercentage = queryInteger(query, 'quorumPercentage', 0, 100, 67);
  const quorumPercentageBuffer = queryInteger(query, 'quorumPercentageBuffer', 0, 100, 0);
  if (quorumPercentage + quorumPercentageBuffer > 100) {
    throw new BadRequestError('quorumPercentageBuffer', `quorumPercentage + quorumPercentageBuffer must be at most 100, got ${quorumPercentage + quorumPercentageBuffer}`);
  }
  const pChainHeight = queryInteger(query, 'pChainHeight', 0, Number.MAX_SAFE_INTEGER, 0);
  return { signingSubnetId, quorumPercentage, quorumPercentageBuffer, pChainHeight };
}

function request(built: PChainL1Message, networkId: number, opts: TxQuery): AggregationRequest {
  return {
    message: newPChainMessage(networkId, built.l1),
    justification: built.justification,
    signingSubnetId: opts.signingSubnetId ?? built.subnetId,
    quorumPercentage: opts.quorumPercentage,
    quorumPercentageBuffer: opts.quorumPercentageBuffer,
    pChainHeight: opts.pChainHeight,
  };
}

/** P-Chain L1 messages for the service's routes, read from its node. */
export function l1MessageBuilder(deps: { pchain: PChainClient; nodeNetworkId: () => Promise<number> }): L1MessageBuilder {
  const { pchain, nodeNetworkId } = deps;
  return {
    async fromTransaction(network, txHash, rawQuery, opts = {}) {
      const pathNetworkId = networkIdOf(network);
      if (pathNetworkId === undefined) throw new BadRequestError('network', `must be mainnet, fuji or testnet, got '${network}'`);
      let txId: Uint8Array;
      try {
        txId = parseCb58Id(txHash, 'txHash');
      } catch (err) {
        if (err instanceof WarpFormatError) throw new BadRequestError('txHash', `must be a cb58 transaction ID: ${err.reason}`);
        throw err;
      }
      const query = parseTxQuery(rawQuery);
      const built = await messageOfTransaction(pchain, txId, { signal: opts.signal, signingSubnetId: query.signingSubnetId });
      return request(built, built.networkId ?? pathNetworkId, query);
    },

    async fromJustification(parsed: ParsedBody, networkId, opts = {}) {
      const built = await messageOfJustification(pchain, parsed.justification, opts);
      if (!built) return null;
      // The node's network ID is asked once and shared: this request only stops waiting for it.
      return request(built, networkId ?? (await untilAborted(nodeNetworkId(), opts.signal)), parsed);
    },
  };
}
