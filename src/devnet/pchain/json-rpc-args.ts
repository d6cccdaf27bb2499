// Decoding a method's params as gorilla json2 and Go's encoding/json do (protocol.md section 8):
// `params` may be omitted, null, an object, or an array whose first element is the object;
// object keys match field names case-insensitively; each avalanchego JSON type (ids.ID,
// ids.NodeID, json.Uint64, platformapi.Height, formatting.Encoding) has its own reader, and any
// value Go would refuse is an InvalidArgumentError.
import { isRecord } from '../../util/is-record.js';
import { cb58Decode, parseNodeId } from '../../warp/cb58.js';
import { WarpFormatError } from '../../warp/errors.js';
import { InvalidArgumentError } from './json-rpc-errors.js';

const MAX_UINT64 = (1n << 64n) - 1n;

/** The `height` of getValidatorsAt and friends: a number, or the proposer VM's height. */
export type HeightArg = bigint | 'proposed';

/**
 * A method's decoded params with typed readers that follow Go's encoding/json and avalanchego's
 * JSON types (ids.ID, ids.NodeID, json.Uint64, platformapi.Height, formatting.Encoding). Every
 * reader throws InvalidArgumentError on a value Go would refuse; an absent or null field is the
 * Go zero value, reported here as undefined.
 */
export class JsonRpcArgs {
  private constructor(readonly raw: Record<string, unknown>) {}

  /** Applies json2's params rules: absent/null → {}, object, or `[object]` (first element). */
  static fromParams(params: unknown): JsonRpcArgs {
    if (params === undefined || params === null) return new JsonRpcArgs({});
    if (isRecord(params)) return new JsonRpcArgs(params);
    if (Array.isArray(params)) {
      // json2 retries as a one-element Go array: extra elements are dropped, none means zero args.
      const first: unknown = params[0];
      if (first === undefined || first === null) return new JsonRpcArgs({});
      if (isRecord(first)) return new JsonRpcArgs(first);
      throw new InvalidArgumentError(`params[0] must be an object, got ${describe(first)}`);
    }
    throw new InvalidArgumentError(`params must be an object or [object], got ${describe(params)}`);
  }

  /** The field's value, matching the name case-insensitively as Go does (the last match wins). */
  get(field: string): unknown {
    const folded = field.toLowerCase();
    let found: unknown;
    for (const [key, value] of Object.entries(this.raw)) {
      if (key.toLowerCase() === folded) found = value;
    }
    return found;
  }

  /** A Go `string` field. */
  string(field: string): string | undefined {
    const value = this.get(field);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new InvalidArgumentError(`${field} must be a string, got ${describe(value)}`);
    return value;
  }

  /** An ids.ID: cb58 of 32 bytes. */
  id(field: string): Uint8Array | undefined {
    const value = this.get(field);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new InvalidArgumentError(`${field} must be a cb58 ID string, got ${describe(value)}`);
    return decodeId(value, field);
  }

  /** An []ids.NodeID: `NodeID-…` strings. */
  nodeIds(field: string): Uint8Array[] | undefined {
    const value = this.get(field);
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) throw new InvalidArgumentError(`${field} must be an array of NodeIDs`);
    return value.map((item: unknown, i) => {
      if (typeof item !== 'string') throw new InvalidArgumentError(`${field}[${i}] must be a NodeID string`);
      try {
        return parseNodeId(item, `${field}[${i}]`);
      } catch (err) {
        throw new InvalidArgumentError(err instanceof WarpFormatError ? err.message : `${field}[${i}] is not a NodeID`);
      }
    });
  }

  /** A json.Uint64: a decimal string or a JSON number, up to 2^64-1. */
  uint64(field: string): bigint | undefined {
    const value = this.get(field);
    if (value === undefined || value === null) return undefined;
    return parseUint64(value, field);
  }

  /** A platformapi.Height: a uint64 (not 2^64-1, which is reserved) or "proposed"; null is 0. */
  height(field: string): HeightArg | undefined {
    const value = this.get(field);
    if (value === undefined) return undefined;
    if (value === null) return 0n;
    if (value === 'proposed') return 'proposed';
    const height = parseUint64(value, field);
    if (height === MAX_UINT64) throw new InvalidArgumentError(`${field} 2^64-1 is reserved for "proposed"`);
    return height;
  }

  /** A formatting.Encoding: hex (the Go zero value), hexc, hexnc or json, in any case. */
  encoding(field: string): 'hex' | 'hexc' | 'hexnc' | 'json' {
    const value = this.get(field);
    if (value === undefined || value === null) return 'hex';
    if (typeof value === 'string') {
      const lower = value.toLowerCase();
      if (lower === 'hex' || lower === 'hexc' || lower === 'hexnc' || lower === 'json') return lower;
    }
    throw new InvalidArgumentError(`${field} must be "hex", "hexc", "hexnc" or "json", got ${describe(value)}`);
  }

  /** A Go `[]string`. */
  strings(field: string): string[] | undefined {
    const value = this.get(field);
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) {
      throw new InvalidArgumentError(`${field} must be an array of strings`);
    }
    return value;
  }
}

function decodeId(text: string, field: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = cb58Decode(text, field);
  } catch (err) {
    throw new InvalidArgumentError(err instanceof WarpFormatError ? err.message : `${field} is not cb58`);
  }
  if (bytes.length !== 32) throw new InvalidArgumentError(`${field} must be 32 bytes, got ${bytes.length}`);
  return bytes;
}

/** json.Uint64's parser: optional surrounding quotes, then decimal digits only. */
function parseUint64(value: unknown, field: string): bigint {
  let text: string | undefined;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) text = String(value);
  else if (typeof value === 'bigint') text = value.toString();
  if (text === undefined || !/^\d{1,20}$/.test(text)) {
    throw new InvalidArgumentError(`${field} must be a uint64 (a decimal string or number), got ${describe(value)}`);
  }
  const parsed = BigInt(text);
  if (parsed > MAX_UINT64) throw new InvalidArgumentError(`${field} ${text} exceeds 2^64-1`);
  return parsed;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value;
}

