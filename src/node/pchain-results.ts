// Strict readers of the P-Chain's validator results (protocol.md section 5), turning them into
// validator entries for canonicalSet. Anything unexpected (a weight that is not a uint64, a
// malformed NodeID or BLS key, a wrong shape) is a ValidatorResultError naming the entry, because
// a silently skipped or mis-read validator changes the canonical order and breaks every bitset.
import { isRecord } from '../util/is-record.js';
import { parseNodeId } from '../warp/cb58.js';
import { WarpFormatError } from '../warp/errors.js';
import { hexToBytes } from '../warp/hex.js';
import { BLS_PUBLIC_KEY_LENGTH } from '../warp/l1-messages.js';
import { ValidatorResultError } from './errors.js';
import { readUint64 } from './json.js';

/** The node ID under which the P-Chain reports the summed weight of inactive L1 validators. */
export const EMPTY_NODE_ID = 'NodeID-111111111111111111116DBWJs';

const MAX_UINT64 = (1n << 64n) - 1n;

/** One validator as the P-Chain lists it (validators/canonical-set.ts PChainValidator has this shape). */
export interface PChainValidator {
  nodeId: string;
  weight: bigint;
  /** 48-byte compressed BLS key; null for a validator without one. */
  publicKey: Uint8Array | null;
}

/** A uint64 field (readUint64); anything else names the entry and the field. */
function parseWeight(value: unknown, entry: string, field = 'weight'): bigint {
  const weight = readUint64(value);
  if (weight === undefined) {
    const shown = typeof value === 'string' ? `'${value}'` : String(value);
    throw new ValidatorResultError(`${field} ${shown} is not a uint64 (a decimal string or a safe integer)`, entry);
  }
  return weight;
}

/** A 48-byte compressed key as `0x` hex (prefix optional), or null/absent for none. */
function parsePublicKeyField(value: unknown, entry: string, field = 'publicKey'): Uint8Array | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw new ValidatorResultError(`${field} must be a 0x hex string or null`, entry);
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(value, field);
  } catch (err) {
    throw new ValidatorResultError(err instanceof WarpFormatError ? err.message : `${field} is not hex`, entry);
  }
  if (bytes.length !== BLS_PUBLIC_KEY_LENGTH) {
    throw new ValidatorResultError(`${field} must be ${BLS_PUBLIC_KEY_LENGTH} bytes, got ${bytes.length}`, entry);
  }
  return bytes;
}

function checkNodeId(value: unknown, entry: string): string {
  if (typeof value !== 'string') throw new ValidatorResultError('nodeID must be a NodeID-… string', entry);
  try {
    parseNodeId(value, 'nodeID');
  } catch (err) {
    const reason = err instanceof WarpFormatError ? err.message : 'nodeID is malformed';
    throw new ValidatorResultError(reason, entry === value ? value : `${entry} (${value})`);
  }
  return value;
}

/**
 * `platform.getValidatorsAt` result. Current nodes answer a bare map
 * `{"NodeID-…": {publicKey: "0x…" | null, weight: "N"}}`; older nodes and the docs answer
 * `{validators: {"NodeID-…": N}}` without keys. Both are accepted, and so is a mix of the two
 * (an object value under `validators`).
 */
export function parseValidatorsAtResult(result: unknown): PChainValidator[] {
  if (!isRecord(result)) {
    throw new ValidatorResultError('platform.getValidatorsAt result must be a JSON object');
  }
  const map = 'validators' in result ? result.validators : result;
  if (!isRecord(map)) {
    throw new ValidatorResultError('platform.getValidatorsAt result: validators must be an object keyed by NodeID');
  }
  const entries: PChainValidator[] = [];
  for (const [key, value] of Object.entries(map)) {
    const nodeId = checkNodeId(key, key);
    if (isRecord(value)) {
      entries.push({
        nodeId,
        weight: parseWeight(value.weight, nodeId),
        publicKey: parsePublicKeyField(value.publicKey, nodeId),
      });
    } else {
      entries.push({ nodeId, weight: parseWeight(value, nodeId), publicKey: null });
    }
  }
  return entries;
}

interface CurrentValidators {
  entries: PChainValidator[];
  /**
   * Node IDs of plain subnet stakers (permissioned, non-L1 subnets). getCurrentValidators lists
   * them without a key, but their BLS key is the one they registered on the Primary Network,
   * and the P-Chain's own validator set uses it: look those up before building the set.
   */
  keysOnPrimaryNetwork: string[];
}

/**
 * `platform.getCurrentValidators` result `{validators: [...]}`:
 * - Primary Network (and elastic subnet) validators: key in `signer.publicKey`; their set weight
 *   is their own `weight` plus `delegatorWeight`, as the P-Chain's validator manager counts it;
 * - L1 validators: key in `publicKey`; an inactive one (`balance` 0) is in the P-Chain's set
 *   only as keyless weight, so its key is dropped here;
 * - keyless entries, such as NodeID-111111111111111111116DBWJs carrying inactive L1 weight.
 */
export function parseCurrentValidatorsDetailed(result: unknown): CurrentValidators {
  if (!isRecord(result) || !Array.isArray(result.validators)) {
    throw new ValidatorResultError('platform.getCurrentValidators result must be {validators: [...]}');
  }
  const entries: PChainValidator[] = [];
  const keysOnPrimaryNetwork: string[] = [];
  result.validators.forEach((raw: unknown, i: number) => {
    const where = `validators[${i}]`;
    if (!isRecord(raw)) throw new ValidatorResultError('must be an object', where);
    const nodeId = checkNodeId(raw.nodeID, where);
    let weight = parseWeight(raw.weight, nodeId);
    if (raw.delegatorWeight !== undefined && raw.delegatorWeight !== null) {
      weight += parseWeight(raw.delegatorWeight, nodeId, 'delegatorWeight');
      if (weight > MAX_UINT64) throw new ValidatorResultError('weight + delegatorWeight overflows uint64', nodeId);
    }

    let publicKey: Uint8Array | null = null;
    if (isRecord(raw.signer)) {
      publicKey = parsePublicKeyField(raw.signer.publicKey, nodeId, 'signer.publicKey');
    } else if (raw.signer !== undefined && raw.signer !== null) {
      throw new ValidatorResultError('signer must be an object', nodeId);
    } else if (raw.publicKey !== undefined) {
      publicKey = parsePublicKeyField(raw.publicKey, nodeId);
      if (raw.balance !== undefined && parseWeight(raw.balance, nodeId, 'balance') === 0n) publicKey = null;
    } else if (typeof raw.txID === 'string' && raw.validationID === undefined && nodeId !== EMPTY_NODE_ID) {
      // A plain Staker (txID, startTime, endTime, weight, nodeID): a permissioned subnet validator.
      keysOnPrimaryNetwork.push(nodeId);
    }
    entries.push({ nodeId, weight, publicKey });
  });
  return { entries, keysOnPrimaryNetwork };
}

/** `platform.getCurrentValidators` result as validator entries (see parseCurrentValidatorsDetailed). */
export function parseCurrentValidatorsResult(result: unknown): PChainValidator[] {
  return parseCurrentValidatorsDetailed(result).entries;
}

/**
 * A validators file for `warpgate verify`: the `result` of platform.getValidatorsAt (either
 * shape) or of platform.getCurrentValidators, or a whole JSON-RPC response carrying one. The
 * shape decides: a `validators` array is getCurrentValidators, anything else getValidatorsAt.
 */
export function parseValidatorsFile(json: unknown): PChainValidator[] {
  let result = json;
  if (isRecord(result) && 'jsonrpc' in result) {
    if (result.error !== undefined) {
      throw new ValidatorResultError('the file holds a JSON-RPC error response, not a validator set');
    }
    result = result.result;
  }
  if (isRecord(result) && Array.isArray(result.validators)) return parseCurrentValidatorsResult(result);
  return parseValidatorsAtResult(result);
}
