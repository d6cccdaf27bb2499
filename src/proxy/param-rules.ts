// The value rules of the seeds' REST endpoints, and a reader that applies them to path and query
// parameters while collecting every violation (the Metrics API reports them all as a list).
import { parseCb58Id, parseNodeId } from '../warp/cb58.js';
import { bech32Decode } from '../util/bech32.js';
import type { QueryParams } from './request-target.js';

export const NETWORKS = ['mainnet', 'fuji', 'testnet'] as const;
export type Network = (typeof NETWORKS)[number];
export const SORT_ORDERS = ['asc', 'desc'] as const;
/** The Primary Network's subnet ID (and the P-Chain's blockchain ID). */
export const PRIMARY_NETWORK_SUBNET_ID = '11111111111111111111111111111111LpoYY';

const UINT256_MAX = (1n << 256n) - 1n;

export function isNetwork(value: string): value is Network {
  return (NETWORKS as readonly string[]).includes(value);
}

export function isEvmAddress(value: string): boolean {
  return /^0x[0-9a-fA-F]{40}$/.test(value);
}

/** An EVM chain ID in decimal: 1 to 2^256-1, no sign, no leading zeros. */
export function isDecimalChainId(value: string): boolean {
  return /^[1-9][0-9]{0,77}$/.test(value) && BigInt(value) <= UINT256_MAX;
}

/** A 32-byte ID in cb58 with a valid checksum. */
export function isCb58Id(value: string): boolean {
  try {
    parseCb58Id(value);
    return true;
  } catch {
    return false;
  }
}

/** `NodeID-` followed by the cb58 of 20 bytes, checksum included. */
export function isNodeId(value: string): boolean {
  try {
    parseNodeId(value);
    return true;
  } catch {
    return false;
  }
}

const NODE_ID_PREFIX = 'NodeID-';
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]*$/;

/**
 * A non-empty substring of some node ID (the validators list matches node ids by substring):
 * a part of `NodeID-`, or a suffix of `NodeID-` followed by base58 characters.
 */
export function isNodeIdPart(value: string): boolean {
  if (value === '') return false;
  if (NODE_ID_PREFIX.includes(value)) return true;
  for (let k = 0; k <= NODE_ID_PREFIX.length; k++) {
    const prefixTail = NODE_ID_PREFIX.slice(NODE_ID_PREFIX.length - k);
    if (value.startsWith(prefixTail) && BASE58.test(value.slice(k))) return true;
  }
  return false;
}

/** The bech32 human-readable part of X-Chain and P-Chain addresses on each network. */
function addressHrp(network: Network): string {
  return network === 'mainnet' ? 'avax' : 'fuji';
}

/**
 * An X-Chain or P-Chain address of `network` (seed 000 section 4.5): optionally `P-` or `X-`,
 * then bech32 with the network's prefix carrying a 20-byte address.
 */
export function isChainAddress(value: string, network: Network): boolean {
  const body = value.startsWith('P-') || value.startsWith('X-') ? value.slice(2) : value;
  const decoded = bech32Decode(body);
  return decoded !== null && decoded.hrp === addressHrp(network) && decoded.bytes.length === 20;
}

/** Reads path and query parameters against rules, collecting a message per violation. */
export class ParamReader {
  readonly violations: string[] = [];

  constructor(private readonly query: QueryParams) {}

  fail(message: string): void {
    this.violations.push(message);
  }

  /** Checks a path value; `rule` completes "<name> must …". */
  path(name: string, value: string | undefined, ok: (v: string) => boolean, rule: string): string | undefined {
    if (value === undefined || !ok(value)) {
      this.fail(`${name} must ${rule}`);
      return undefined;
    }
    return value;
  }

  /** The value of a query parameter given at most once; undefined when absent. */
  one(name: string): string | undefined {
    const all = this.query.getAll(name);
    if (all.length > 1) {
      this.fail(`${name} must be given at most once`);
      return undefined;
    }
    return all[0];
  }

  present(name: string): boolean {
    return this.query.getAll(name).some((v) => v !== '');
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const v = this.one(name);
    if (v === undefined) return undefined;
    if (!(values as readonly string[]).includes(v)) {
      this.fail(`${name} must be one of: ${values.join(', ')}`);
      return undefined;
    }
    return v as T;
  }

  /** A whole number written in decimal digits, within [min, max]. */
  integer(name: string, min: number, max: number): number | undefined {
    const v = this.one(name);
    if (v === undefined) return undefined;
    const n = /^[0-9]+$/.test(v) ? Number(v) : Number.NaN;
    if (!(n >= min && n <= max)) {
      this.fail(max === Number.MAX_SAFE_INTEGER ? `${name} must be an integer of at least ${min}` : `${name} must be an integer from ${min} to ${max}`);
      return undefined;
    }
    return n;
  }

  /** A non-negative decimal number (digits, optional fraction), within [min, max]. */
  decimal(name: string, min: number, max: number): number | undefined {
    const v = this.one(name);
    if (v === undefined) return undefined;
    const n = /^[0-9]+(\.[0-9]+)?$/.test(v) ? Number(v) : Number.NaN;
    if (!(n >= min && n <= max)) {
      this.fail(`${name} must be a number from ${min} to ${max}`);
      return undefined;
    }
    return n;
  }

  /** An integer string that may exceed 2^53 (amounts in nano-units), within [min, max]. */
  bigInteger(name: string, min: bigint, max: bigint): bigint | undefined {
    const v = this.one(name);
    if (v === undefined) return undefined;
    const n = /^[0-9]{1,40}$/.test(v) ? BigInt(v) : undefined;
    if (n === undefined || n < min || n > max) {
      this.fail(`${name} must be an integer string from ${min} to ${max}`);
      return undefined;
    }
    return n;
  }

  /**
   * A comma-separated list whose every item passes `ok`; `rule` describes one item. An empty
   * value is an empty filter, the same as leaving the parameter out.
   */
  list(name: string, ok: (item: string) => boolean, rule: string): string[] | undefined {
    const v = this.one(name);
    if (v === undefined || v === '') return undefined;
    const items = v.split(',');
    const bad = items.find((item) => !ok(item));
    if (bad !== undefined) {
      this.fail(`${name} must be a comma-separated list of ${rule}; "${truncate(bad)}" is not one`);
      return undefined;
    }
    return items;
  }

  /** `pageToken` (opaque) and `pageSize` within [1, max]. */
  paging(maxPageSize: number): void {
    this.one('pageToken');
    this.integer('pageSize', 1, maxPageSize);
  }
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
