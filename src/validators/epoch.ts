// ACP-181 epochs: since Granite a chain verifies incoming Warp messages against the validator set
// at its current epoch's P-Chain height, not at the tip. Facts from avalanchego:
// - `proposervm.getCurrentEpoch` at /ext/bc/{chainID}/proposervm (vms/proposervm/service.go,
//   GetEpochResponse; documented in vms/proposervm/service.md) answers
//   {number, startTime, pChainHeight}, each a utils/json.Uint64, i.e. a quoted decimal string
//   (whose decoder also takes a bare number). startTime is unix SECONDS: block.Epoch.StartTime is
//   an int64 set from the sealing block's timestamp.Unix() (vms/proposervm/acp181/epoch.go).
// - Before Granite the answer is the zero epoch (number 0); the first Granite epoch is number 1.
// - An epoch ends with the first block whose timestamp is at or after startTime + D (that block
//   still belongs to it); the next block starts the next epoch. D is upgrade.Config's
//   `graniteEpochDuration` (upgrade/upgrade.go), a Go time.Duration, which encoding/json writes
//   as integer NANOSECONDS; `info.upgrades` returns that Config (api/info/service.go). D is
//   5 minutes on Mainnet and Fuji, 30 s in the default (local network) config.
// - Each field is validated here so a wrong answer fails loudly instead of signing at height 0.

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

/** D on Mainnet and Fuji (upgrade.Mainnet / upgrade.Fuji in avalanchego's upgrade/upgrade.go). */
export const MAINNET_EPOCH_DURATION_MS = 5 * 60 * 1000;

const NANOS_PER_MILLI = 1_000_000n;
const MAX_INT64 = (1n << 63n) - 1n;
/** startTime * 1000 plus a duration must stay an exact JS number. */
const MAX_START_TIME_SECONDS = Math.floor(Number.MAX_SAFE_INTEGER / 1000 / 2);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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

/** A non-negative integer as a decimal string (json.Uint64), a JSON number or a bigint. */
function readUint(method: string, field: string, value: unknown): bigint {
  if (typeof value === 'bigint' && value >= 0n) return value;
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw new EpochResultError(method, field, `${shown(value)} is not a non-negative integer (a decimal string or a safe integer)`);
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

/** False for the zero epoch a chain reports before Granite: sign at the proposed height then. */
export function isGraniteEpoch(epoch: ProposerEpoch): boolean {
  return epoch.number > 0;
}

/**
 * The earliest time (unix ms) at which the epoch can end: a block at or after startTime + D seals
 * it and the block after that starts the next one. Until then its pChainHeight is what the chain
 * verifies against. (The chain may accept a block up to avalanchego's maxSkew, 10 s, ahead of its
 * own clock, so callers wanting no overlap at all subtract a margin.)
 */
export function epochExpiryMs(epoch: ProposerEpoch, durationMs: number): number {
  if (!Number.isSafeInteger(durationMs) || durationMs < 0) {
    throw new RangeError(`epoch duration must be a non-negative integer of milliseconds, got ${durationMs}`);
  }
  return epoch.startTime * 1000 + durationMs;
}

/**
 * Until when (unix ms) an epoch read at `nowMs` may be reused. Normally its expiry; but an idle
 * chain keeps reporting an epoch past its expiry (no block has sealed it yet), and without a floor
 * every request would ask again, so it is reused for at least `minRefreshMs` more.
 */
export function epochCacheDeadlineMs(epoch: ProposerEpoch, durationMs: number, nowMs: number, minRefreshMs: number): number {
  return Math.max(epochExpiryMs(epoch, durationMs), nowMs + minRefreshMs);
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
