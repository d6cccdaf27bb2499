// Readers of the node's answers about ACP-181 epochs: proposervm.getCurrentEpoch (a chain's
// current epoch) and info.upgrades (the epoch duration D). What avalanchego sends:
// - `proposervm.getCurrentEpoch` at /ext/bc/{chainID}/proposervm (vms/proposervm/service.go,
//   GetEpochResponse; documented in vms/proposervm/service.md) answers
//   {number, startTime, pChainHeight}, each a utils/json.Uint64, i.e. a quoted decimal string
//   (whose decoder also takes a bare number). startTime is unix SECONDS: block.Epoch.StartTime is
//   an int64 set from the sealing block's timestamp.Unix() (vms/proposervm/acp181/epoch.go).
// - D is upgrade.Config's `graniteEpochDuration` (upgrade/upgrade.go), a Go time.Duration, which
//   encoding/json writes as integer NANOSECONDS; `info.upgrades` returns that Config
//   (api/info/service.go).
// - Each field is validated here so a wrong answer fails loudly instead of signing at height 0.
// The arithmetic on epochs is pure and lives in validators/epoch.ts.
import { isRecord } from '../util/is-record.js';
import { readUint64 } from './json.js';

/** The epoch a chain's next block would carry, as proposervm.getCurrentEpoch reports it. */
export interface ProposerEpoch {
  /** 0 before Granite; the first epoch is 1. */
  number: number;
  /** Unix seconds. */
  startTime: number;
  pChainHeight: number;
}

/** An answer from a node that does not have the documented shape. Names the method and field. */
export class EpochResultError extends Error {
  override readonly name = 'EpochResultError';
  constructor(
    /** `proposervm.getCurrentEpoch` or `info.upgrades`. */
    readonly method: string,
    /** The field at fault, e.g. `startTime`; `result` for the whole answer. */
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${method} result: ${field} ${reason}`);
  }
}

const GET_CURRENT_EPOCH = 'proposervm.getCurrentEpoch';
const INFO_UPGRADES = 'info.upgrades';

const NANOS_PER_MILLI = 1_000_000n;
const MAX_INT64 = (1n << 63n) - 1n;
/** startTime * 1000 plus a duration must stay an exact JS number. */
const MAX_START_TIME_SECONDS = Math.floor(Number.MAX_SAFE_INTEGER / 1000 / 2);

function shown(value: unknown): string {
  if (typeof value === 'string') return `'${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`;
  if (value === undefined) return 'missing';
  if (typeof value === 'bigint') return `${value}n`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A uint64 field (readUint64), or an EpochResultError naming it. */
function readUint(method: string, field: string, value: unknown): bigint {
  const n = readUint64(value);
  if (n === undefined) throw new EpochResultError(method, field, `${shown(value)} is not a non-negative integer (a decimal string or a safe integer)`);
  return n;
}

function readSafeUint(method: string, field: string, value: unknown, max = Number.MAX_SAFE_INTEGER): number {
  const n = readUint(method, field, value);
  if (n > BigInt(max)) throw new EpochResultError(method, field, `${n} is beyond ${max}`);
  return Number(n);
}

/** Reads a `proposervm.getCurrentEpoch` result; throws EpochResultError naming the bad field. */
export function parseCurrentEpoch(result: unknown): ProposerEpoch {
  if (!isRecord(result)) throw new EpochResultError(GET_CURRENT_EPOCH, 'result', `${shown(result)} is not an object`);
  return {
    number: readSafeUint(GET_CURRENT_EPOCH, 'number', result.number),
    startTime: readSafeUint(GET_CURRENT_EPOCH, 'startTime', result.startTime, MAX_START_TIME_SECONDS),
    pChainHeight: readSafeUint(GET_CURRENT_EPOCH, 'pChainHeight', result.pChainHeight),
  };
}

/**
 * The epoch duration D in milliseconds from an `info.upgrades` result (`graniteEpochDuration`,
 * nanoseconds), rounded down so a cached epoch is never kept past its end. Null when the field is
 * absent: a node from before Granite, whose chains have no epochs.
 */
export function parseEpochDurationMs(upgrades: unknown): number | null {
  if (!isRecord(upgrades)) throw new EpochResultError(INFO_UPGRADES, 'result', `${shown(upgrades)} is not an object`);
  const value = upgrades.graniteEpochDuration;
  if (value === undefined || value === null) return null;
  const nanos = readUint(INFO_UPGRADES, 'graniteEpochDuration', value);
  if (nanos > MAX_INT64) {
    throw new EpochResultError(INFO_UPGRADES, 'graniteEpochDuration', `${nanos} ns is beyond a Go time.Duration (int64)`);
  }
  return Number(nanos / NANOS_PER_MILLI);
}
