// The pool of signer peers: the ones configured are dialed, and signers that dial in on
// config.peerPath are admitted by the validator sets' admission and within the inbound limits.
import type { Logger } from 'pino';
import type { BlsPool } from '../bls-pool/pool.js';
import type { PeerAdmission } from '../peers/admission.js';
import { PEER_AUTH_DST } from '../peers/auth.js';
import { PeerPool } from '../peers/pool.js';
import { DEFAULT_PENALTIES } from '../util/penalty-box.js';
import type { Config } from '../config/config.js';

export function createPeerPool(config: Config, pool: BlsPool, admission: PeerAdmission, onRefused: (reason: string) => void, logger: Logger): PeerPool {
  const peers = new PeerPool({
    dial: config.peers,
    requestTimeoutMs: config.aggregation.requestTimeoutMs,
    // Possession proofs are pure-JS pairings (tens of ms): off the event loop, and behind every
    // aggregation task in the worker pool.
    verifyPossession: (publicKey, message, proof) => pool.verifyPossession({ publicKey, message, proof, dst: PEER_AUTH_DST }),
    admitInbound: (key) => admission.check(key),
    maxInboundPeers: config.peerAdmission.maxInboundPeers,
    maxPendingHandshakes: config.peerAdmission.maxPendingHandshakes,
    maxPendingPerIp: config.peerAdmission.maxPendingPerIp,
    handshakesPerMinutePerIp: config.peerAdmission.handshakesPerMinutePerIp,
    helloTimeoutMs: config.peerAdmission.helloTimeoutMs,
    penalties: { ...config.peerPenalties, maxTrackedKeys: DEFAULT_PENALTIES.maxTrackedKeys },
    logger: logger.child({ component: 'peers' }),
  });
  peers.on('refused', onRefused);
  return peers;
}
