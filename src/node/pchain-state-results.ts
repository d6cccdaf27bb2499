// Readers of the P-Chain's answers about its state (heights, time, subnets, L1 validators,
// transactions), each parsed once, here. A reader throws a plain Error saying what is wrong; the
// transport turns it into a 'bad-response' NodeError naming the method.
import { sha256 } from '@noble/hashes/sha2.js';
import { isRecord } from '../util/is-record.js';
import { parseCb58Id } from '../warp/cb58.js';
import { bytesEqual, hexToBytes } from '../warp/hex.js';
import { readUint64 } from './json.js';

export type TxStatus = 'Committed' | 'Processing' | 'Dropped' | 'Unknown' | 'Aborted';
const TX_STATUSES: readonly string[] = ['Committed', 'Processing', 'Dropped', 'Unknown', 'Aborted'];

export interface SubnetInfo {
  isPermissioned: boolean;
  /** 32 zero bytes until the subnet is converted to an L1. */
  conversionId: Uint8Array;
  managerChainId: Uint8Array;
  /** Empty until the subnet is converted. */
  managerAddress: Uint8Array;
  /** The whole result, for the fields not modelled here (controlKeys, threshold, ...). */
  raw: Record<string, unknown>;
}

/** What the P-Chain holds of an L1 validator (platform.getL1Validator). */
export interface L1ValidatorState {
  /** The L1 (subnet) it validates. */
  subnetId: Uint8Array;
  weight: bigint;
  /** The nonce the next L1ValidatorWeight must carry at least; the last one applied is minNonce - 1. */
  minNonce: bigint;
}

function record(result: unknown): Record<string, unknown> {
  if (!isRecord(result)) throw new Error('result is not an object');
  return result;
}

function uint64Field(result: Record<string, unknown>, field: string): bigint {
  const value = readUint64(result[field]);
  if (value === undefined) {
    const shown = typeof result[field] === 'string' ? `'${result[field]}'` : String(result[field]);
    throw new Error(`${field} ${shown} is not a uint64 (a decimal string or a safe integer)`);
  }
  return value;
}

function idField(result: Record<string, unknown>, field: string): Uint8Array {
  if (typeof result[field] !== 'string') throw new Error(`missing ${field}`);
  return parseCb58Id(result[field], field);
}

export function readHeight(result: unknown): number {
  const height = uint64Field(record(result), 'height');
  if (height > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`height ${height} is beyond 2^53`);
  return Number(height);
}

/** platform.getTimestamp: `{timestamp: RFC 3339}`, as Unix seconds. */
export function readTimestamp(result: unknown): bigint {
  const { timestamp } = record(result);
  const ms = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  if (!Number.isFinite(ms)) throw new Error(`timestamp is not a time: ${JSON.stringify(timestamp)}`);
  return BigInt(Math.floor(ms / 1000));
}

export function readValidatedBy(result: unknown): Uint8Array {
  return idField(record(result), 'subnetID');
}

export function readSubnet(result: unknown): SubnetInfo {
  const r = record(result);
  const id = (field: string): Uint8Array => {
    const v = r[field];
    if (v === undefined || v === null) return new Uint8Array(32);
    if (typeof v !== 'string') throw new Error(`${field} is not a cb58 string`);
    return parseCb58Id(v, field);
  };
  const address = r.managerAddress;
  return {
    isPermissioned: r.isPermissioned === true,
    conversionId: id('conversionID'),
    managerChainId: id('managerChainID'),
    managerAddress: address === undefined || address === null ? new Uint8Array(0) : hexToBytes(String(address), 'managerAddress'),
    raw: r,
  };
}

export function readL1Validator(result: unknown): L1ValidatorState {
  const r = record(result);
  return { subnetId: idField(r, 'subnetID'), weight: uint64Field(r, 'weight'), minNonce: uint64Field(r, 'minNonce') };
}

export function readTx(result: unknown, encoding: 'json' | 'hex'): Uint8Array | Record<string, unknown> {
  const r = record(result);
  if (encoding === 'json') {
    if (!isRecord(r.tx)) throw new Error('tx is not an object');
    return r.tx;
  }
  if (typeof r.tx !== 'string') throw new Error('tx is not a hex string');
  return stripHexChecksum(hexToBytes(r.tx, 'tx'));
}

export function readTxStatus(result: unknown): { status: TxStatus; reason?: string } {
  if (!isRecord(result) || typeof result.status !== 'string' || !TX_STATUSES.includes(result.status)) {
    throw new Error(`status must be one of ${TX_STATUSES.join(', ')}`);
  }
  const status = result.status as TxStatus;
  return typeof result.reason === 'string' && result.reason !== '' ? { status, reason: result.reason } : { status };
}

/** avalanchego's formatting.Hex appends the last 4 bytes of sha256(bytes) as a checksum. */
function stripHexChecksum(bytes: Uint8Array): Uint8Array {
  if (bytes.length < 4) throw new Error('hex tx is too short to carry its checksum');
  const body = bytes.subarray(0, bytes.length - 4);
  if (!bytesEqual(sha256(body).subarray(-4), bytes.subarray(bytes.length - 4))) {
    throw new Error('hex tx has a bad checksum');
  }
  return Uint8Array.from(body);
}
