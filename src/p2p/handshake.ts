// Building our Handshake and checking a peer's exactly as avalanchego's network/peer/peer.go
// handleHandshake does, in its order: network ID; |my_time − now| ≤ 60 s; (a newer version is
// only logged); at most 16 tracked subnets of 32 bytes each; supported and objected ACPs,
// filtered to the ACPs the node considers current (utils/constants/acps.go CurrentACPs, empty in
// v1.15.0), must not overlap; known_peers, when present, a valid bloom filter with a salt of at
// most 32 bytes; ip_addr 4 or 16 bytes; ip_port ≠ 0; ip_signing_time ≤ now + 60 s and
// ip_node_id_sig the certificate key's signature (network/peer/ip.go SignedIP.Verify);
// ip_bls_sig a valid BLS signature encoding; then shouldDisconnect: the version must be
// compatible (version/compatibility.go), and for a peer the node knows as a validator with a
// BLS key, ip_bls_sig must verify under that key.
import { create } from '@bufbuild/protobuf';
import type { BlsBackend, PublicKey } from '../bls/index.js';
import { HandshakeSchema, type Handshake } from './gen/p2p/p2p_pb.js';
import { HandshakeRefusedError, P2PProtocolError } from './errors.js';
import { MAX_BLOOM_SALT_BYTES, MAX_CLOCK_DIFFERENCE_S, MAX_TRACKED_SUBNETS } from './constants.js';
import { parseBloomFilter } from './bloom.js';
import { ipFromWireBytes, unsignedIpBytes, verifyIpBlsSignature, verifyIpTlsSignature } from './signed-ip.js';
import { formatVersion, isCompatible, type ClientVersion } from './version.js';
import type { StakingCertificate } from './staking-certificate.js';
import { cutPeerText } from '../util/peer-text.js';

/** A peer's client name is kept to this many characters (it reaches logs and refusal details). */
const MAX_CLIENT_NAME_CHARS = 64;

export interface SignedIp {
  /** 4 or 16 bytes, as sent. */
  ip: Uint8Array;
  port: number;
  timestamp: bigint;
  tlsSignature: Uint8Array;
  blsSignature: Uint8Array;
}

export interface OurHandshake {
  networkId: number;
  nowSeconds: number;
  signedIp: SignedIp;
  version: ClientVersion;
  upgradeTimeSeconds: number;
  trackedSubnets: readonly Uint8Array[];
  supportedAcps: readonly number[];
  objectedAcps: readonly number[];
  knownPeers: { filter: Uint8Array; salt: Uint8Array };
  allSubnets: boolean;
}

export function buildHandshake(h: OurHandshake): Handshake {
  return create(HandshakeSchema, {
    networkId: h.networkId,
    myTime: BigInt(Math.floor(h.nowSeconds)),
    ipAddr: h.signedIp.ip,
    ipPort: h.signedIp.port,
    upgradeTime: BigInt(Math.floor(h.upgradeTimeSeconds)),
    ipSigningTime: h.signedIp.timestamp,
    ipNodeIdSig: h.signedIp.tlsSignature,
    trackedSubnets: [...h.trackedSubnets],
    client: { name: h.version.name, major: h.version.major, minor: h.version.minor, patch: h.version.patch },
    supportedAcps: [...h.supportedAcps],
    objectedAcps: [...h.objectedAcps],
    knownPeers: { filter: h.knownPeers.filter, salt: h.knownPeers.salt },
    ipBlsSig: h.signedIp.blsSignature,
    allSubnets: h.allSubnets,
  });
}

export interface HandshakeCheck {
  networkId: number;
  nowSeconds: number;
  maxClockDifferenceS?: number;
  current: ClientVersion;
  minCompatible: ClientVersion;
  /** ACPs this side considers current; support/objection to others is ignored, as avalanchego does. */
  currentAcps?: ReadonlySet<number>;
  peerCertificate: StakingCertificate;
  bls: BlsBackend;
  /** The peer's registered BLS key when this side knows it as a validator. */
  validatorBlsKey?: PublicKey;
}

export interface PeerHandshake {
  version: ClientVersion;
  upgradeTimeSeconds: bigint;
  /** Always includes the primary network (32 zero bytes). */
  trackedSubnets: Uint8Array[];
  allSubnets: boolean;
  supportedAcps: number[];
  objectedAcps: number[];
  /** The address the peer signed: what to dial it at. */
  ip: string;
  port: number;
  ipSigningTime: bigint;
}

export function checkPeerHandshake(hs: Handshake, c: HandshakeCheck): PeerHandshake {
  const refuse = (field: string, detail: string): never => {
    throw new HandshakeRefusedError(field, detail);
  };
  const maxSkew = c.maxClockDifferenceS ?? MAX_CLOCK_DIFFERENCE_S;
  if (hs.networkId !== c.networkId) refuse('networkID', `peer is on network ${hs.networkId}, this side on ${c.networkId}`);
  const skew = Math.abs(Number(hs.myTime) - Math.floor(c.nowSeconds));
  if (skew > maxSkew) refuse('myTime', `clocks differ by ${skew} s (more than ${maxSkew} s)`);
  const version: ClientVersion = {
    // The peer's to choose, and logged with a refusal: cut (avalanchego's own is 'avalanchego').
    name: cutPeerText(hs.client?.name ?? '', MAX_CLIENT_NAME_CHARS),
    major: hs.client?.major ?? 0,
    minor: hs.client?.minor ?? 0,
    patch: hs.client?.patch ?? 0,
  };
  if (hs.trackedSubnets.length > MAX_TRACKED_SUBNETS) refuse('trackedSubnets', `${hs.trackedSubnets.length} tracked subnets (at most ${MAX_TRACKED_SUBNETS})`);
  const trackedSubnets: Uint8Array[] = [new Uint8Array(32)];
  for (const s of hs.trackedSubnets) {
    if (s.length !== 32) refuse('trackedSubnets', `a subnet ID of ${s.length} bytes`);
    trackedSubnets.push(s);
  }
  const current = c.currentAcps ?? new Set<number>();
  const supported = [...new Set(hs.supportedAcps.filter((a) => current.has(a)))];
  const objected = [...new Set(hs.objectedAcps.filter((a) => current.has(a)))];
  const overlap = supported.filter((a) => objected.includes(a));
  if (overlap.length > 0) refuse('acps', `ACPs both supported and objected: ${overlap.join(', ')}`);
  if (hs.knownPeers) {
    try {
      parseBloomFilter(hs.knownPeers.filter);
    } catch (err) {
      refuse('knownPeers.filter', (err as P2PProtocolError).message);
    }
    if (hs.knownPeers.salt.length > MAX_BLOOM_SALT_BYTES) refuse('knownPeers.salt', `salt of ${hs.knownPeers.salt.length} bytes (at most ${MAX_BLOOM_SALT_BYTES})`);
  }
  const ip = ipFromWireBytes(hs.ipAddr) ?? refuse('ip', `an IP of ${hs.ipAddr.length} bytes`);
  const port = hs.ipPort & 0xffff;
  if (port === 0) refuse('port', 'port 0');
  const unsigned = unsignedIpBytes(hs.ipAddr, port, hs.ipSigningTime);
  const maxTimestamp = BigInt(Math.floor(c.nowSeconds + maxSkew));
  if (hs.ipSigningTime > maxTimestamp) refuse('tlsSignature', `IP signing time ${hs.ipSigningTime} is too far in the future (max ${maxTimestamp})`);
  if (!verifyIpTlsSignature(c.peerCertificate.publicKey, unsigned, hs.ipNodeIdSig)) refuse('tlsSignature', 'ip_node_id_sig does not verify under the certificate key');
  try {
    c.bls.signatureFromBytes(hs.ipBlsSig);
  } catch (err) {
    refuse('blsSignature', `ip_bls_sig is not a BLS signature (${(err as Error).message})`);
  }
  if (!isCompatible(version, c.current, c.minCompatible)) {
    refuse('version', `${formatVersion(version)} is not compatible with ${formatVersion(c.current)} (minimum ${formatVersion(c.minCompatible)})`);
  }
  if (c.validatorBlsKey && !verifyIpBlsSignature(c.bls, c.validatorBlsKey, unsigned, hs.ipBlsSig)) {
    refuse('blsSignature', 'ip_bls_sig does not verify under the validator BLS key');
  }
  return {
    version,
    upgradeTimeSeconds: hs.upgradeTime,
    trackedSubnets,
    allSubnets: hs.allSubnets,
    supportedAcps: supported,
    objectedAcps: objected,
    ip,
    port,
    ipSigningTime: hs.ipSigningTime,
  };
}
