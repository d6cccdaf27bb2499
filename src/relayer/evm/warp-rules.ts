// Which Warp rules a destination verifies with, from its `eth_getChainConfig` (protocol.md §11).
// subnet-evm answers with its chain config: the genesis precompile configs at the top level
// (`warpConfig`) and the scheduled upgrades under `upgrades.precompileUpgrades` (entries like
// `{"warpConfig": {"blockTimestamp": T, "quorumNumerator": Q, "requirePrimaryNetworkSigners": B}}`
// or `{"warpConfig": {"blockTimestamp": T, "disable": true}}`). The rules in force are those of
// the latest entry activated by now, else the genesis config. coreth (the C-Chain) has no
// warpConfig: Warp is always on there with the default quorum, and its config is recognised by
// its Apricot upgrade times, which subnet-evm's never carries.
import type { WarpRules } from '../ports.js';

/** avalanchego's WarpDefaultQuorumNumerator: what a quorumNumerator of 0 (or none) means. */
export const DEFAULT_QUORUM_NUMERATOR = 67;
const MIN_QUORUM_NUMERATOR = 33;
const QUORUM_DENOMINATOR = 100;

export class WarpRulesError extends Error {
  override readonly name = 'WarpRulesError';
}

interface WarpConfigEntry {
  readonly blockTimestamp?: number;
  readonly disable?: boolean;
  readonly quorumNumerator?: number;
  readonly requirePrimaryNetworkSigners?: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function warpEntry(value: unknown, where: string): WarpConfigEntry {
  if (!isObject(value)) throw new WarpRulesError(`${where} is not an object`);
  const number = (key: string): number | undefined => {
    const v = value[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new WarpRulesError(`${where}.${key} is not a non-negative integer`);
    return v;
  };
  return {
    blockTimestamp: number('blockTimestamp'),
    disable: value.disable === true,
    quorumNumerator: number('quorumNumerator'),
    requirePrimaryNetworkSigners: value.requirePrimaryNetworkSigners === true,
  };
}

function isCoreth(config: Record<string, unknown>): boolean {
  return Object.keys(config).some((key) => key.startsWith('apricotPhase'));
}

/**
 * The rules in force at `nowSeconds` for a chain whose `eth_getChainConfig` answered `config`.
 * Throws WarpRulesError when Warp is off there (never enabled, not yet activated, or disabled
 * by an upgrade) or the config is not one it understands.
 */
export function warpRulesFromChainConfig(config: unknown, nowSeconds: number): WarpRules {
  if (!isObject(config)) throw new WarpRulesError('eth_getChainConfig did not answer an object');
  const entries: WarpConfigEntry[] = [];
  if (config.warpConfig !== undefined) entries.push(warpEntry(config.warpConfig, 'warpConfig'));
  const upgrades = isObject(config.upgrades) ? config.upgrades.precompileUpgrades : config.precompileUpgrades;
  if (upgrades !== undefined && upgrades !== null) {
    if (!Array.isArray(upgrades)) throw new WarpRulesError('precompileUpgrades is not an array');
    upgrades.forEach((upgrade: unknown, i) => {
      if (isObject(upgrade) && upgrade.warpConfig !== undefined) entries.push(warpEntry(upgrade.warpConfig, `precompileUpgrades[${i}].warpConfig`));
    });
  }
  if (entries.length === 0) {
    if (isCoreth(config)) return { quorumNumerator: DEFAULT_QUORUM_NUMERATOR, requirePrimaryNetworkSigners: false };
    throw new WarpRulesError('the chain config has no warpConfig: Warp is not enabled on this chain');
  }
  // Upgrades are listed in activation order; the genesis config (timestamp 0 or absent) first.
  const active = entries.filter((e) => (e.blockTimestamp ?? 0) <= nowSeconds);
  const current = active.at(-1);
  if (!current) throw new WarpRulesError(`Warp is scheduled but not active yet (from ${entries[0]?.blockTimestamp ?? 0})`);
  if (current.disable) throw new WarpRulesError(`Warp was disabled by an upgrade at ${current.blockTimestamp ?? 0}`);
  const quorumNumerator = current.quorumNumerator === undefined || current.quorumNumerator === 0 ? DEFAULT_QUORUM_NUMERATOR : current.quorumNumerator;
  if (quorumNumerator < MIN_QUORUM_NUMERATOR || quorumNumerator > QUORUM_DENOMINATOR) {
    throw new WarpRulesError(`quorumNumerator ${quorumNumerator} is outside [${MIN_QUORUM_NUMERATOR}, ${QUORUM_DENOMINATOR}]`);
  }
  return { quorumNumerator, requirePrimaryNetworkSigners: current.requirePrimaryNetworkSigners ?? false };
}

/** When the rules may change next: the first scheduled warpConfig entry after now (seconds), if any. */
export function nextWarpUpgradeAt(config: unknown, nowSeconds: number): number | undefined {
  if (!isObject(config)) return undefined;
  const upgrades = isObject(config.upgrades) ? config.upgrades.precompileUpgrades : config.precompileUpgrades;
  if (!Array.isArray(upgrades)) return undefined;
  const times = upgrades
    .filter((u: unknown): u is Record<string, unknown> => isObject(u) && isObject(u.warpConfig))
    .map((u) => (u.warpConfig as Record<string, unknown>).blockTimestamp)
    .filter((t): t is number => typeof t === 'number' && t > nowSeconds);
  return times.length > 0 ? Math.min(...times) : undefined;
}
