// Child-process entry that hosts a group of devnet signer peers, so their CPU is not on the
// service's event loop. The parent sends one `start` message over IPC and receives each signer's
// public key and port (or a `failed` message, and the process exits 1); SIGTERM or a `stop`
// message closes them and exits 0 (host-serve.ts). A restarted host is given the ports of the one before it,
// which the service keeps redialing.
import { loadBackend } from '../../bls/index.js';
import { KeyFileBackend, PChainPolicy, SignerPeer, StaticPolicy, type SigningPolicy } from '../../signer/index.js';
import { bytesToHex, hexToBytes } from '../../warp/hex.js';
import type { SignerHostReady, SignerHostStart } from './protocol.js';
import { serveHost, type Closable } from '../host-serve.js';

async function startSigners(msg: SignerHostStart, running: Closable[]): Promise<SignerHostReady> {
  const bls = loadBackend(msg.backend);
  const chains = new StaticPolicy({ networkId: msg.networkId, allowedSourceChains: msg.allowedSourceChainsHex.map((h) => hexToBytes(h)) });
  const policy: SigningPolicy = msg.pchainUrl ? new PChainPolicy({ networkId: msg.networkId, nodeUrl: msg.pchainUrl, otherChains: chains }) : chains;
  const ready: SignerHostReady['signers'] = [];
  for (const s of msg.signers) {
    const secretKey = bls.secretKeyFromBytes(hexToBytes(s.secretKeyHex));
    const peer = new SignerPeer({
      secretKey,
      bls,
      backend: new KeyFileBackend(secretKey, bls, policy),
      listen: { port: s.port ?? 0, host: '127.0.0.1' },
      faults: s.fault,
      answerDelayMs: s.answerDelayMs ? () => s.answerDelayMs! : undefined,
    });
    running.push(peer);
    const { port } = await peer.start();
    ready.push({ publicKeyHex: bytesToHex(bls.publicKeyOf(secretKey).bytes), port: port! });
  }
  return { type: 'ready', signers: ready };
}

serveHost(startSigners);
