// Builds what one side claims in its Handshake from an identity and options, signing its IP
// once (as network/peer/ip_signer.go does for an unchanged IP).
import type { BlsBackend, SecretKey } from '../bls/index.js';
import { MAX_CLOCK_DIFFERENCE_S, DEFAULT_STAKING_PORT } from './constants.js';
import type { LocalSide } from './connection-types.js';
import { emptyKnownPeers } from './bloom.js';
import type { OurHandshake } from './handshake.js';
import type { StakingIdentity } from './identity.js';
import { ipToWireBytes, signIpWithBls, signIpWithTlsKey, unsignedIpBytes } from './signed-ip.js';
import { DEFAULT_CLIENT_VERSION, MAINNET_MIN_COMPATIBLE, UNSCHEDULED_UPGRADE_TIME_S, type ClientVersion } from './version.js';

export interface LocalSideOptions {
  networkId: number;
  identity: StakingIdentity;
  bls: BlsBackend;
  /** This side's BLS key; a throwaway one serves a non-validator. */
  blsSecretKey?: SecretKey;
  /** The address this side claims (and signs); an outbound-only client still claims one. */
  publicHost?: string;
  publicPort?: number;
  version?: ClientVersion;
  minCompatible?: ClientVersion;
  upgradeTimeSeconds?: number;
  trackedSubnets?: readonly Uint8Array[];
  allSubnets?: boolean;
  supportedAcps?: readonly number[];
  objectedAcps?: readonly number[];
  currentAcps?: ReadonlySet<number>;
  maxClockDifferenceS?: number;
  now?: () => number;
  compressOutbound?: boolean;
  onUnparseable?: 'disconnect' | 'ignore';
  onUnrequestedPong?: 'drop' | 'disconnect';
  onUnrequestedResponse?: 'disconnect' | 'drop';
}

export function makeLocalSide(o: LocalSideOptions): LocalSide {
  const now = o.now ?? Date.now;
  const host = o.publicHost ?? '127.0.0.1';
  const port = o.publicPort ?? DEFAULT_STAKING_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`the claimed port must be 1..65535, got ${port}`);
  const ip = ipToWireBytes(host);
  const timestamp = BigInt(Math.floor(now() / 1000));
  const unsigned = unsignedIpBytes(ip, port, timestamp);
  const sk = o.blsSecretKey ?? o.bls.generateSecretKey();
  return {
    networkId: o.networkId,
    bls: o.bls,
    signedIp: {
      ip,
      port,
      timestamp,
      tlsSignature: signIpWithTlsKey(o.identity.privateKey, unsigned),
      blsSignature: signIpWithBls(o.bls, sk, unsigned),
    },
    version: o.version ?? DEFAULT_CLIENT_VERSION,
    minCompatible: o.minCompatible ?? MAINNET_MIN_COMPATIBLE,
    upgradeTimeSeconds: o.upgradeTimeSeconds ?? UNSCHEDULED_UPGRADE_TIME_S,
    trackedSubnets: o.trackedSubnets ?? [],
    allSubnets: o.allSubnets ?? false,
    supportedAcps: o.supportedAcps ?? [],
    objectedAcps: o.objectedAcps ?? [],
    currentAcps: o.currentAcps ?? new Set(),
    maxClockDifferenceS: o.maxClockDifferenceS ?? MAX_CLOCK_DIFFERENCE_S,
    now,
    compressOutbound: o.compressOutbound ?? false,
    onUnparseable: o.onUnparseable ?? 'disconnect',
    onUnrequestedPong: o.onUnrequestedPong ?? 'drop',
    onUnrequestedResponse: o.onUnrequestedResponse ?? 'disconnect',
  };
}

/** The Handshake fields this side sends, from what it claims. */
export function ourHandshake(local: LocalSide): OurHandshake {
  return {
    networkId: local.networkId,
    nowSeconds: local.now() / 1000,
    signedIp: local.signedIp,
    version: local.version,
    upgradeTimeSeconds: local.upgradeTimeSeconds,
    trackedSubnets: local.trackedSubnets,
    supportedAcps: local.supportedAcps,
    objectedAcps: local.objectedAcps,
    knownPeers: emptyKnownPeers(),
    allSubnets: local.allSubnets,
  };
}
