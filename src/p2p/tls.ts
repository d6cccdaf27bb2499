// TLS as avalanchego uses it (network/peer/tls_config.go, upgrader.go): TLS 1.3, both sides
// present their staking certificate, no CA and no ALPN; the peer is authenticated only by its
// certificate, whose NodeID must be the validator we meant to reach (outbound) or is computed
// from it (inbound).
import { connect, type ConnectionOptions, type TlsOptions, type TLSSocket } from 'node:tls';
import type { StakingIdentity } from './identity.js';
import { checkPeerCertificate, type StakingCertificate } from './staking-certificate.js';

/** 'handshake': TLS worked but the p2p Handshake/PeerList exchange did not complete. */
export type DialFailure = 'refused' | 'timeout' | 'tls' | 'bad-certificate' | 'wrong-node-id' | 'handshake';

export class P2PDialError extends Error {
  override readonly name = 'P2PDialError';
  constructor(
    readonly kind: DialFailure,
    detail: string,
    /** For 'wrong-node-id': the NodeID the certificate did prove. */
    readonly actualNodeId?: string,
  ) {
    super(detail);
  }
}

export function tlsServerOptions(identity: StakingIdentity): TlsOptions {
  return {
    cert: identity.certPem,
    key: identity.keyPem,
    requestCert: true,
    // Staking certificates are self-signed: the check is ours (peerCertificateOf).
    rejectUnauthorized: false,
    minVersion: 'TLSv1.3',
    noDelay: true,
  };
}

function tlsClientOptions(identity: StakingIdentity): ConnectionOptions {
  return { cert: identity.certPem, key: identity.keyPem, rejectUnauthorized: false, minVersion: 'TLSv1.3' };
}

/** The peer's staking certificate after the TLS handshake; throws P2PDialError('bad-certificate'). */
export function peerCertificateOf(socket: TLSSocket): StakingCertificate {
  const raw = socket.getPeerCertificate(true)?.raw;
  if (!raw || raw.length === 0) throw new P2PDialError('bad-certificate', 'the peer presented no certificate');
  try {
    return checkPeerCertificate(Uint8Array.from(raw));
  } catch (err) {
    throw new P2PDialError('bad-certificate', (err as Error).message);
  }
}

/** Connects, completes TLS within `timeoutMs`, and checks the peer is `expectedNodeId`. */
export function dialPeer(target: { host: string; port: number; expectedNodeId: string }, identity: StakingIdentity, timeoutMs: number): Promise<{ socket: TLSSocket; certificate: StakingCertificate }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const socket = connect({ ...tlsClientOptions(identity), host: target.host, port: target.port });
    // A request is one small write that must leave at once (Go, and so avalanchego, sets
    // TCP_NODELAY too): with Nagle, a second request to a peer would wait for the first one's ACK.
    socket.setNoDelay(true);
    const fail = (err: P2PDialError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    const timer = setTimeout(() => fail(new P2PDialError('timeout', `no TLS session with ${target.host}:${target.port} within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const kind: DialFailure = err.code === 'ECONNREFUSED' || err.code === 'ECONNRESET' || err.code === 'EHOSTUNREACH' ? 'refused' : 'tls';
      fail(new P2PDialError(kind, `${target.host}:${target.port}: ${err.message}`));
    });
    socket.once('close', () => fail(new P2PDialError('tls', `${target.host}:${target.port} closed the connection during TLS`)));
    socket.once('secureConnect', () => {
      if (settled) return;
      let certificate: StakingCertificate;
      try {
        certificate = peerCertificateOf(socket);
      } catch (err) {
        return fail(err as P2PDialError);
      }
      if (certificate.nodeId !== target.expectedNodeId) {
        return fail(new P2PDialError('wrong-node-id', `${target.host}:${target.port} is ${certificate.nodeId}, not ${target.expectedNodeId}`, certificate.nodeId));
      }
      settled = true;
      clearTimeout(timer);
      socket.removeAllListeners('error');
      socket.removeAllListeners('close');
      resolve({ socket, certificate });
    });
  });
}
