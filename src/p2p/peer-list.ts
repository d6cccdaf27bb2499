// PeerList entries (ClaimedIpPort): reading a peer's, as network/peer/peer.go handlePeerList
// and network.go track() do, and writing ours.
import { create } from '@bufbuild/protobuf';
import type { DiscoveredPeer } from './connection-types.js';
import { ClaimedIpPortSchema, type BloomFilter, type ClaimedIpPort } from './gen/p2p/p2p_pb.js';
import { parseBloomFilter } from './bloom.js';
import { MAX_BLOOM_SALT_BYTES } from './constants.js';
import type { SignedIp } from './handshake.js';
import { ipFromWireBytes, unsignedIpBytes, verifyIpTlsSignature } from './signed-ip.js';
import { parseStakingCertificate, type StakingCertificate } from './staking-certificate.js';

/** Why a GetPeerList's known-peers filter is refused (network/peer/peer.go handleGetPeerList), or undefined when it is valid. */
export function getPeerListFault(known: BloomFilter | undefined): string | undefined {
  try {
    parseBloomFilter(known?.filter ?? new Uint8Array());
  } catch (err) {
    return (err as Error).message;
  }
  return (known?.salt.length ?? 0) > MAX_BLOOM_SALT_BYTES ? 'bloom salt longer than 32 bytes' : undefined;
}

interface PeerListRules {
  /** Entries examined per message (a node sends at most 15 by default). */
  maxEntries: number;
  /** Unix seconds: an IP signed later than this is in the future. */
  maxTimestamp: bigint;
  /** Only wanted peers are verified (the signature check is the cost). */
  wantsPeer(nodeId: string): boolean;
}

/** The wanted peers whose signed IPs check out, or the fault that disconnects the sender. */
export function readPeerList(entries: readonly ClaimedIpPort[], rules: PeerListRules): { discovered: DiscoveredPeer[] } | { fault: string } {
  const discovered: DiscoveredPeer[] = [];
  for (const entry of entries.slice(0, rules.maxEntries)) {
    let certificate: StakingCertificate;
    try {
      certificate = parseStakingCertificate(entry.x509Certificate);
    } catch (err) {
      return { fault: `PeerList certificate: ${(err as Error).message}` };
    }
    const host = ipFromWireBytes(entry.ipAddr);
    if (host === undefined) return { fault: `PeerList IP of ${entry.ipAddr.length} bytes` };
    const port = entry.ipPort & 0xffff;
    if (port === 0) return { fault: 'PeerList port 0' };
    if (!rules.wantsPeer(certificate.nodeId)) continue;
    if (entry.timestamp > rules.maxTimestamp) return { fault: 'PeerList IP signed in the future' };
    if (!verifyIpTlsSignature(certificate.publicKey, unsignedIpBytes(entry.ipAddr, port, entry.timestamp), entry.signature)) {
      return { fault: `PeerList entry for ${certificate.nodeId} has a bad IP signature` };
    }
    discovered.push({ nodeId: certificate.nodeId, host, port, timestamp: entry.timestamp, certificate });
  }
  return { discovered };
}

/** A PeerList entry for a node that signed its address (what the simulated node gossips). */
export function claimedIpPort(certDer: Uint8Array, signedIp: SignedIp, txId: Uint8Array = new Uint8Array(32)): ClaimedIpPort {
  return create(ClaimedIpPortSchema, {
    x509Certificate: certDer,
    ipAddr: signedIp.ip,
    ipPort: signedIp.port,
    timestamp: signedIp.timestamp,
    signature: signedIp.tlsSignature,
    txId,
  });
}
