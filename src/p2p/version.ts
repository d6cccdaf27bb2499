// Client versions and avalanchego's compatibility rule (version/compatibility.go): a peer on a
// higher major version, or below the minimum compatible version, is refused. The client name is
// not checked by avalanchego. Numbers (version/constants.go): v1.15.0 (the newest release found,
// tag v1.15.0-fuji) is Current with MinimumCompatibleVersion 1.15.0 after the Helicon upgrade
// and PrevMinimumCompatibleVersion 1.14.0 before it (node/node.go passes HeliconTime):
// upgrade/upgrade.go schedules Helicon on Fuji at 2026-07-28 15:00 UTC and leaves it
// unscheduled on mainnet, so mainnet nodes accept 1.14.0 and Fuji nodes 1.15.0.

export interface ClientVersion {
  name: string;
  major: number;
  minor: number;
  patch: number;
}

const AVALANCHEGO_CLIENT_NAME = 'avalanchego';
/** The newest avalanchego release found (v1.15.0-fuji); what warpgate claims by default. */
export const DEFAULT_CLIENT_VERSION: ClientVersion = { name: AVALANCHEGO_CLIENT_NAME, major: 1, minor: 15, patch: 0 };
/** Mainnet's minimum (Helicon unscheduled there). */
export const MAINNET_MIN_COMPATIBLE: ClientVersion = { name: AVALANCHEGO_CLIENT_NAME, major: 1, minor: 14, patch: 0 };
/** Fuji's minimum since Helicon (2026-07-28 15:00 UTC). */
export const FUJI_MIN_COMPATIBLE: ClientVersion = { name: AVALANCHEGO_CLIENT_NAME, major: 1, minor: 15, patch: 0 };
/** upgrade/upgrade.go UnscheduledActivationTime, the upgrade_time a mainnet v1.15.0 node sends. */
export const UNSCHEDULED_UPGRADE_TIME_S = Date.UTC(9999, 11, 1) / 1000;

export function compareVersions(a: ClientVersion, b: ClientVersion): number {
  return Math.sign(a.major - b.major) || Math.sign(a.minor - b.minor) || Math.sign(a.patch - b.patch);
}

/** version/compatibility.go Compatible, with the minimum already chosen for the current time. */
export function isCompatible(peer: ClientVersion, current: ClientVersion, minCompatible: ClientVersion): boolean {
  if (current.major < peer.major) return false;
  return compareVersions(peer, minCompatible) >= 0;
}

export function formatVersion(v: ClientVersion): string {
  return `${v.name}/${v.major}.${v.minor}.${v.patch}`;
}

/** Parses "1.15.0", "v1.15.0" or "avalanchego/1.15.0". */
export function parseVersion(text: string): ClientVersion {
  const m = /^(?:([A-Za-z0-9_.-]+)\/)?v?(\d{1,9})\.(\d{1,9})\.(\d{1,9})$/.exec(text.trim());
  if (!m) throw new RangeError(`"${text}" is not a version like 1.15.0 or avalanchego/1.15.0`);
  return { name: m[1] ?? AVALANCHEGO_CLIENT_NAME, major: Number(m[2]), minor: Number(m[3]), patch: Number(m[4]) };
}
