// The one parser of the quorum options (signing subnet, quorum percentage and buffer, P-Chain
// height, destination chain, the client's own timeout), whether a POST body carries them as JSON
// values or GET …/aggregateSignatures/{txHash} as query strings. The rules (ranges, defaults, the sum) are written once, here; how a value is
// read, and what a client is told when it is not a value at all, is each source's own.
import { parseId } from '../warp/cb58.js';
import { WarpFormatError } from '../warp/errors.js';
import { DEFAULT_QUORUM_PERCENTAGE } from '../validators/quorum.js';
import { BadRequestError, parseField } from './errors.js';
import { cutPeerText, MAX_QUOTED_CHARS, quoteValue } from '../util/peer-text.js';
import type { FieldNames } from './dialects.js';

export interface QuorumOptions {
  signingSubnetId?: Uint8Array;
  quorumPercentage: number;
  quorumPercentageBuffer: number;
  pChainHeight: number;
  /** The chain that will verify the message: its epoch's P-Chain height is signed at. */
  destinationBlockchainId?: Uint8Array;
  /** How long the client waits, in ms; the configured aggregation.deadlineMs caps it. */
  timeoutMs?: number;
}

/** Where the options are read from. Each method answers undefined for a field not given. */
interface FieldSource {
  /** Whether `name` is given (of a field's several spellings, the one given is read). */
  has(name: string): boolean;
  /** An integer, with the text the client sent for it (messages quote it). */
  integer(name: string): { value: number; text: string } | undefined;
  /** A 32-byte ID in hex or cb58. */
  id(name: string): Uint8Array | undefined;
}

/** A JSON body's values: null is absent, numbers must be integers. */
export function bodyFields(body: Record<string, unknown>): FieldSource {
  return {
    has: (name) => body[name] !== undefined && body[name] !== null,
    integer(name) {
      const v = body[name];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'number' || !Number.isInteger(v)) throw new BadRequestError(name, `must be an integer, got ${quoteValue(v, 'json')}`);
      return { value: v, text: String(v) };
    },
    id(name) {
      const v = body[name];
      if (v === undefined || v === null || v === '') return undefined;
      if (typeof v !== 'string') throw new BadRequestError(name, 'must be a hex or cb58 string');
      return parseField(name, () => parseId(v, name));
    },
  };
}

/** A URL query (express's parsed `req.query`): each field one string; empty is absent. */
export function queryFields(query: Record<string, unknown>): FieldSource {
  const single = (name: string): string | undefined => {
    const v = query[name];
    if (v === undefined || v === '') return undefined;
    if (typeof v !== 'string') throw new BadRequestError(name, 'must be given once, as a single value');
    return v;
  };
  return {
    has: (name) => query[name] !== undefined && query[name] !== '',
    integer(name) {
      const text = single(name);
      if (text === undefined) return undefined;
      if (!/^-?\d+$/.test(text)) throw new BadRequestError(name, `must be an integer, got ${quoteValue(text)}`);
      // Digits only, but as many as the URL holds: messages quote a short prefix.
      return { value: Number(text), text: cutPeerText(text, MAX_QUOTED_CHARS) };
    },
    id(name) {
      const text = single(name);
      if (text === undefined) return undefined;
      try {
        return parseId(text, name);
      } catch (err) {
        if (err instanceof WarpFormatError) throw new BadRequestError(name, `must be a 32-byte ID in hex or cb58: ${err.reason}`);
        throw err;
      }
    },
  };
}

function integerIn(source: FieldSource, name: string, min: number, max: number, fallback: number): number {
  const given = source.integer(name);
  if (given === undefined) return fallback;
  if (given.value < min || given.value > max) throw new BadRequestError(name, `must be from ${min} to ${max}, got ${given.text}`);
  return given.value;
}

/** The options as `names` spell them; the first mistake is a BadRequestError naming its field. */
export function parseQuorumOptions(source: FieldSource, names: FieldNames): QuorumOptions {
  const signingSubnetId = source.id(names.signingSubnetId);
  const givenQuorum = integerIn(source, names.quorumPercentage, 0, 100, DEFAULT_QUORUM_PERCENTAGE);
  const quorumPercentage = givenQuorum === 0 && names.zeroQuorumMeansDefault ? DEFAULT_QUORUM_PERCENTAGE : givenQuorum;
  const quorumPercentageBuffer = integerIn(source, names.quorumPercentageBuffer, 0, 100, 0);
  if (quorumPercentage + quorumPercentageBuffer > 100) {
    throw new BadRequestError(names.quorumPercentageBuffer, `${names.quorumPercentage} + ${names.quorumPercentageBuffer} must be at most 100, got ${quorumPercentage + quorumPercentageBuffer}`);
  }
  const heightField = names.pChainHeight.find((name) => source.has(name)) ?? names.pChainHeight[0];
  const pChainHeight = integerIn(source, heightField, 0, Number.MAX_SAFE_INTEGER, 0);
  const destinationBlockchainId = source.id(names.destinationBlockchainId);
  // Above the configured deadline it is cut to it (Aggregator.startDeadline): a relayer's own
  // deadline longer than ours is no mistake.
  const timeout = source.integer(names.timeoutMs);
  if (timeout !== undefined && timeout.value < 1) throw new BadRequestError(names.timeoutMs, `must be a positive number of milliseconds, got ${timeout.text}`);
  return {
    signingSubnetId,
    quorumPercentage,
    quorumPercentageBuffer,
    pChainHeight,
    ...(destinationBlockchainId ? { destinationBlockchainId } : {}),
    ...(timeout ? { timeoutMs: timeout.value } : {}),
  };
}
