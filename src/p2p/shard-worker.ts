// A p2p I/O shard: a worker thread that runs a P2PNetwork over the slice of validators the main
// thread gives it (sharded-network.ts). Dialling, TLS, handshakes, pings, PeerLists, penalties,
// reconnects, framing, compression and protobuf all happen here, off the main thread's event
// loop; what crosses back is connection state and, once per turn of this thread's loop, the
// answers read in that turn, signatures packed into one buffer. The shard knows nothing of
// weights or quorum.
import { parentPort, workerData } from 'node:worker_threads';
import { loadBackend, type BlsBackend, type PublicKey } from '../bls/index.js';
import type { AskTicket } from '../util/ask.js';
import { RequestFailedError } from '../util/request-failure.js';
import { bytesEqual } from '../warp/hex.js';
import type { P2PAnswer, SignatureRequestInput } from './connection-types.js';
import { loadStakingIdentity } from './identity.js';
import { P2PNetwork, type P2PLogger } from './network.js';
import { SIGNATURE_BYTES, shardOf, type FromShard, type ShardInit, type ShardOutcome, type ShardTarget, type ToShard } from './shard-messages.js';

/** How often the shard reports how many dials it has under way (stats(): the status page, /ready). */
const STATS_INTERVAL_MS = 1_000;

class Shard {
  private readonly network: P2PNetwork;
  private readonly bls: BlsBackend;
  private readonly tickets = new Map<number, AskTicket>();
  private blsKeys = new Map<string, PublicKey>();
  private signatureIds: number[] = [];
  private signatures: Uint8Array[] = [];
  private others: ShardOutcome[] = [];
  private flushScheduled = false;
  private readonly statsTimer: NodeJS.Timeout;

  constructor(
    private readonly init: ShardInit,
    private readonly post: (m: FromShard) => void,
  ) {
    this.bls = loadBackend(init.blsBackend);
    const logger: P2PLogger = {
      debug: (obj, msg) => {
        if (init.logDebug) post({ type: 'log', level: 'debug', obj, msg });
      },
      info: (obj, msg) => post({ type: 'log', level: 'info', obj, msg }),
      warn: (obj, msg) => post({ type: 'log', level: 'warn', obj, msg }),
    };
    const { shard, shards, certPem, keyPem, blsSecretKey, blsBackend, logDebug, ...settings } = init;
    this.network = new P2PNetwork({
      ...settings,
      identity: loadStakingIdentity(certPem, keyPem),
      blsSecretKey: this.bls.secretKeyFromBytes(blsSecretKey),
      bls: this.bls,
      validatorBlsKey: (nodeId) => this.blsKeys.get(nodeId),
      adoptDiscovered: false,
      keepsStrikesOf: (nodeId) => shardOf(nodeId, shards) === shard,
      logger,
    });
    this.network.on('connected', (nodeId) => post({ type: 'connected', nodeId }));
    this.network.on('disconnected', (nodeId, reason) => post({ type: 'disconnected', nodeId, reason }));
    this.network.on('dialFailed', (nodeId, err) => post({ type: 'dialFailed', nodeId, kind: err.kind, message: err.message }));
    this.network.on('strikeElsewhere', (nodeId, reason) => post({ type: 'penalize', nodeId, reason }));
    this.network.on('banned', (nodeId, cooldownMs) => post({ type: 'banned', nodeId, cooldownMs }));
    this.network.on('dropped', (nodeId, kind) => post({ type: 'dropped', nodeId, kind }));
    this.network.on('discovered', (p) => post({ type: 'discovered', nodeId: p.nodeId, host: p.host, port: p.port, timestamp: p.timestamp, certificateDer: p.certificate.der }));
    this.statsTimer = setInterval(() => {
      post({ type: 'stats', dialing: this.network.stats().dialing });
    }, STATS_INTERVAL_MS);
    this.statsTimer.unref();
  }

  async start(): Promise<void> {
    await this.network.start();
    this.post({ type: 'started' });
  }

  handle(m: ToShard): void {
    switch (m.type) {
      case 'asks':
        for (let i = 0; i < m.ids.length; i++) this.ask(m.ids[i]!, m.nodeIds[i]!, m.requests[m.requestOf[i]!]!, m.timeoutsMs[i]!);
        return;
      case 'cancel':
        for (const id of m.ids) {
          this.tickets.get(id)?.cancel('cancelled');
          this.tickets.delete(id);
        }
        return;
      case 'targets':
        this.setTargets(m.targets);
        return;
      case 'wanted':
        this.network.setWanted(m.nodeIds);
        return;
      case 'penalize':
        this.network.penalize(m.nodeId, m.reason);
        return;
      case 'bans':
        for (const b of m.bans) this.network.ban(b.nodeId, b.forMs);
        return;
      case 'pullPeerList':
        this.network.pullPeerList();
        return;
      case 'retrySoon':
        this.network.retrySoon(m.nodeId);
        return;
      case 'close':
        void this.close();
        return;
    }
  }

  private setTargets(targets: ShardTarget[]): void {
    // Every replan sends the whole slice: decode only the keys that are new or changed.
    const keys = new Map<string, PublicKey>();
    for (const t of targets) {
      if (!t.blsKey) continue;
      const known = this.blsKeys.get(t.nodeId);
      if (known && bytesEqual(known.bytes, t.blsKey)) {
        keys.set(t.nodeId, known);
        continue;
      }
      try {
        keys.set(t.nodeId, this.bls.publicKeyFromBytes(t.blsKey));
      } catch {
        // The main thread sends keys of canonical sets, which were checked already; a key that
        // does not decode here is left out, as if unregistered.
      }
    }
    this.blsKeys = keys;
    this.network.setTargets(targets.map(({ nodeId, host, port }) => ({ nodeId, host, port })));
  }

  private ask(id: number, nodeId: string, req: SignatureRequestInput, timeoutMs: number): void {
    const ticket = this.network.ask(nodeId, req, timeoutMs, (err, answer) => {
      if (!this.tickets.delete(id)) return;
      this.settle(id, nodeId, err, answer);
    });
    this.tickets.set(id, ticket);
  }

  private settle(id: number, nodeId: string, err: Error | undefined, answer: P2PAnswer | undefined): void {
    if (answer?.kind === 'signature' && answer.signature.length === SIGNATURE_BYTES) {
      this.signatureIds.push(id);
      this.signatures.push(answer.signature);
    } else if (answer?.kind === 'refused') {
      this.others.push({ id, kind: 'refused', code: answer.code, reason: answer.reason });
    } else if (answer) {
      // A signature of the wrong length cannot be packed; the connection decodes exactly 96 bytes, so this does not happen.
      this.others.push({ id, kind: 'failed', reason: 'protocol', detail: 'a signature that is not 96 bytes' });
    } else {
      const reason = err instanceof RequestFailedError ? err.reason : 'protocol';
      // The main thread names the node again (P2PRequestError): the detail goes without it.
      const message = err?.message ?? 'no answer';
      const detail = message.startsWith(`${nodeId}: `) ? message.slice(nodeId.length + 2) : message;
      this.others.push({ id, kind: 'failed', reason, detail });
    }
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // Everything read in this turn of the loop goes back as one message.
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    const packed = new Uint8Array(this.signatures.length * SIGNATURE_BYTES);
    this.signatures.forEach((s, i) => packed.set(s, i * SIGNATURE_BYTES));
    this.post({ type: 'answers', signatureIds: this.signatureIds, signatures: packed, others: this.others });
    this.signatureIds = [];
    this.signatures = [];
    this.others = [];
  }

  private async close(): Promise<void> {
    clearInterval(this.statsTimer);
    await this.network.close();
    // The answers the close produced ('closed' failures) go first.
    if (this.flushScheduled) this.flush();
    this.post({ type: 'closed' });
  }
}

if (parentPort) {
  const port = parentPort;
  const post = (m: FromShard): void => {
    if (m.type === 'answers') port.postMessage(m, [m.signatures.buffer as ArrayBuffer]);
    else port.postMessage(m);
  };
  const shard = new Shard(workerData as ShardInit, post);
  port.on('message', (m: ToShard) => shard.handle(m));
  shard.start().catch((err: unknown) => {
    // Nothing to run without zstd or a local side: the main thread sees the exit and restarts the shard.
    post({ type: 'log', level: 'warn', obj: { err: (err as Error).message }, msg: 'p2p shard failed to start' });
    process.exit(1);
  });
}

export default undefined;
