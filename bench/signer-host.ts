// Child-process entry hosting a group of simulated validators: real SignerPeers over real
// WebSockets, outside the service's process. Before timing starts, each signs every benchmark
// message (a byzantine one signs other bytes, so its answer is well-formed but invalid); during
// the runs a signer only looks its answer up and waits its injected delay.
import { loadBackend } from '../src/bls/index.js';
import type { BlsBackend, SecretKey } from '../src/bls/types.js';
import { CloseCode } from '../src/peers/frames.js';
import type { PeerLogger } from '../src/peers/logger.js';
import { SignerPeer, type SignOutcome, type SigningBackend } from '../src/signer/index.js';
import { bytesToHex, hexToBytes } from '../src/warp/hex.js';
import type { UnsignedMessage } from '../src/warp/unsigned-message.js';
import { measurementHandlers } from './host-measurement.js';
import { exitIfOrphaned, serveHost } from './ipc.js';
import { messageIndexOf, precomputeSignatures, precomputedSignature, type Precomputed } from './precomputed.js';

export interface HostedValidator {
  secretKeyHex: string;
  byzantine: boolean;
  /** Injected delay per message index. */
  delaysMs: number[];
}

export interface PrepareRequest {
  type: 'prepare';
  validators: HostedValidator[];
  messagesHex: string[];
}

export interface ConnectRequest {
  type: 'connect';
  /** The service's peer endpoint, e.g. ws://127.0.0.1:PORT/v1/peers. */
  url: string;
  /** Positions in the prepared list to start now. */
  positions: number[];
}

/** Answers from precomputed signatures: no BLS work while the benchmark is timing. */
class PrecomputedBackend implements SigningBackend {
  constructor(
    private readonly messageIndex: ReadonlyMap<string, number>,
    private readonly signatures: Precomputed,
  ) {}

  sign(message: UnsignedMessage): Promise<SignOutcome> {
    const found = precomputedSignature(this.messageIndex, this.signatures, message.bytes);
    if (!found) return Promise.resolve({ kind: 'refused', reason: 'not one of the benchmark messages' });
    return Promise.resolve({ kind: 'signature', signature: found.signature });
  }
}

interface Prepared {
  secretKey: SecretKey;
  backend: PrecomputedBackend;
  delaysMs: number[];
  byzantine: boolean;
}

/**
 * Once the service bans a byzantine validator, it stays away for the rest of the benchmark, as
 * if it waited out the cooldown: redialing would only spend this process's CPU on handshake
 * proofs (pure-JS BLS, tens of ms each) in the middle of the timed runs.
 */
function giveUpWhenBanned(peer: () => SignerPeer): PeerLogger {
  return {
    info(o: object) {
      if ((o as { code?: unknown }).code === CloseCode.penalized) {
        const p = peer();
        running.delete(p);
        void p.close();
      }
    },
    warn() {},
  };
}

const bls: BlsBackend = loadBackend('blst');
let messageIndex = new Map<string, number>();
let prepared: Prepared[] = [];
const running = new Set<SignerPeer>();

async function closeAll(): Promise<void> {
  const peers = [...running];
  running.clear();
  await Promise.allSettled(peers.map((p) => p.close()));
}

serveHost(
  {
    prepare: async (req: PrepareRequest) => {
      const started = performance.now();
      const messages = req.messagesHex.map((h) => hexToBytes(h));
      messageIndex = messageIndexOf(req.messagesHex);
      prepared = req.validators.map((v) => {
        exitIfOrphaned();
        const secretKey = bls.secretKeyFromBytes(hexToBytes(v.secretKeyHex));
        const signatures = precomputeSignatures(bls, secretKey, messages, v.byzantine, 'uncompressed');
        return { secretKey, backend: new PrecomputedBackend(messageIndex, signatures), delaysMs: v.delaysMs, byzantine: v.byzantine };
      });
      return { signingMs: performance.now() - started };
    },
    connect: async (req: ConnectRequest) => {
      for (const position of req.positions) {
        const p = prepared[position];
        if (!p) throw new Error(`no prepared validator at position ${position}`);
        const peer: SignerPeer = new SignerPeer({
          secretKey: p.secretKey,
          bls,
          backend: p.backend,
          connect: [req.url],
          // A benchmark's service answers at once; retry quickly if a handshake is refused.
          reconnect: { minMs: 50, maxMs: 2_000 },
          answerDelayMs: (message) => p.delaysMs[messageIndex.get(bytesToHex(message.bytes)) ?? -1] ?? 0,
          ...(p.byzantine ? { logger: giveUpWhenBanned(() => peer) } : {}),
        });
        running.add(peer);
        await peer.start();
      }
      return { running: running.size };
    },
    disconnect: async () => {
      await closeAll();
      return { running: 0 };
    },
    ...measurementHandlers(),
  },
  closeAll,
);
