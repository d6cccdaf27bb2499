// The avalanchego peer transport as the service runs it: on whenever upstreams.node is set and
// p2p.enabled. It needs the node's network ID before its first Handshake, so it starts in the
// background: `serve` answers /health at once, and while the node is unreachable or answers
// nonsense the transport keeps asking (backing off to 10 s) and connects nobody; /ready tells the
// truth meanwhile. Once running, it keeps the planned validators connected (p2p-targets.ts):
// addresses from p2p.peers, from info.peers of the node (every discoveryIntervalMs, and soon after
// a new set brings validators without an address) and from PeerList gossip.
import type { Logger } from 'pino';
import type { BlsBackend } from '../bls/types.js';
import type { Config } from '../config/config.js';
import type { InfoClient } from '../node/info.js';
import { compareVersions, formatVersion, MAX_TRACKED_SUBNETS, P2PNetwork, ShardedP2PNetwork, parseVersion, type ClientVersion, type P2PAnswer, type SignatureRequestInput } from '../p2p/index.js';
import { sleep, untilAborted } from '../util/abortable.js';
import { failedAsk, type AskDone, type AskTicket } from '../util/ask.js';
import { parseHostPort } from '../util/host-port.js';
import type { P2PIdentity } from './p2p-identity.js';
import { AddressBook, planTargets } from './p2p-targets.js';
import type { ValidatorDirectory } from './validator-directory.js';

type TransportState = 'waiting-for-node' | 'running' | 'closed';

/** What the transport reports as it happens (the metrics). */
interface P2PTransportEvents {
  dialFailed?(kind: string): void;
  /** What an honest slow node did, dropped without a penalty (DropKind). */
  dropped?(kind: string): void;
}

interface P2PTransportOptions {
  p2p: Config['p2p'];
  /** readiness.subnets: claimed as tracked in the Handshake (the Primary Network left out, at most 16), so that nodes gossip their validators. */
  trackedSubnets: readonly Uint8Array[];
  requestTimeoutMs: number;
  info: InfoClient;
  nodeNetworkId: () => Promise<number>;
  directory: ValidatorDirectory;
  identity: P2PIdentity;
  /** The backend of the validator sets' keys (a validator's Handshake BLS signature is checked with it). */
  bls: BlsBackend;
  logger: Logger;
  events?: P2PTransportEvents;
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 10_000;
/** info.peers is not asked again sooner than this when new sets bring validators without an address. */
const MIN_DISCOVERY_GAP_MS = 5_000;
/** NodeIDs named in one info.peers call at most. */
const MAX_ASKED_NODE_IDS = 5_000;
/** NodeIDs remembered as unreachable at most, the oldest forgotten first. */
const MAX_UNREACHABLE = 100_000;
/** How long after a validator dropped info.peers is watched for its return (a restart, an upgrade). */
const LOST_WATCH_MS = 10 * 60_000;
/** Validators watched for their return at once, at most (the oldest drop forgotten first). */
const MAX_LOST = 1_000;

export class P2PTransport {
  private network: P2PNetwork | ShardedP2PNetwork | undefined;
  private current: TransportState = 'waiting-for-node';
  private readonly book: AddressBook;
  private readonly stop = new AbortController();
  private running: Promise<void> | undefined;
  private replanScheduled = false;
  private discoveryTimer: NodeJS.Timeout | undefined;
  private lastDiscoveryAt = -Infinity;
  private discovering = false;
  /** A discovery was asked for by a new set and is about to run. */
  private discoverySoon = false;
  private wanted: string[] = [];
  private wantedSet = new Set<string>();
  private targetSet = new Set<string>();
  /** NodeIDs whose last dial failed, that dropped or were banned (until they connect): not waited for (see connecting). */
  private readonly unreachable = new Set<string>();
  /** Validators that were connected and dropped, by when (see watchLost). */
  private readonly lost = new Map<string, number>();
  private lostTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: P2PTransportOptions) {
    this.book = new AddressBook(
      opts.p2p.peers.map((p) => {
        // Checked by the config schema already.
        const a = parseHostPort(p.address, { names: true }) as { host: string; port: number };
        return { nodeId: p.nodeId, host: a.host, port: a.port };
      }),
    );
  }

  get state(): TransportState {
    return this.current;
  }

  /** warpgate's NodeID on the peer network. */
  get nodeId(): string {
    return this.opts.identity.identity.nodeId;
  }

  /** Starts in the background; never throws. */
  start(): void {
    this.running ??= this.run().catch((err: unknown) => {
      if (this.current !== 'closed') this.opts.logger.error({ err: messageOf(err) }, 'the p2p transport stopped');
    });
  }

  isConnected(nodeId: string): boolean {
    return this.network?.isConnected(nodeId) ?? false;
  }

  /**
   * A connection to this validator is expected soon: the transport is starting or it is among
   * the validators planned, with an address or one still being looked up, and it has not failed
   * a dial, dropped or been banned since it was last connected. An aggregation waits for such a
   * validator (fan-out.ts).
   */
  connecting(nodeId: string): boolean {
    if (this.current === 'closed' || this.isConnected(nodeId) || this.unreachable.has(nodeId)) return false;
    if (this.current === 'waiting-for-node' || this.replanScheduled || this.targetSet.has(nodeId)) return true;
    // Without an address: only until the info.peers read under way (or just scheduled) ends.
    return this.wantedSet.has(nodeId) && (this.discovering || this.discoverySoon);
  }

  connectedCount(): number {
    return this.network?.stats().connected ?? 0;
  }

  stats(): { state: TransportState; nodeId: string; targets: number; connected: number; dialing: number; ioShards: number } {
    const s = this.network?.stats();
    return { state: this.current, nodeId: this.nodeId, targets: s?.targets ?? 0, connected: s?.connected ?? 0, dialing: s?.dialing ?? 0, ioShards: this.opts.p2p.ioShards };
  }

  request(nodeId: string, req: SignatureRequestInput, opts: { timeoutMs?: number; signal?: AbortSignal }): Promise<P2PAnswer> {
    if (!this.network) return Promise.reject(new Error('the p2p transport is not running'));
    return this.network.request(nodeId, req, opts);
  }

  ask(nodeId: string, req: SignatureRequestInput, timeoutMs: number, done: AskDone<P2PAnswer>): AskTicket {
    if (!this.network) return failedAsk(new Error('the p2p transport is not running'), done);
    return this.network.ask(nodeId, req, timeoutMs, done);
  }

  penalize(nodeId: string, reason: string): void {
    this.network?.penalize(nodeId, reason);
  }

  async close(): Promise<void> {
    this.current = 'closed';
    this.stop.abort();
    clearTimeout(this.discoveryTimer);
    clearTimeout(this.lostTimer);
    await this.running;
    await this.network?.close();
  }

  private async run(): Promise<void> {
    const { logger } = this.opts;
    const networkId = await this.awaitNetworkId();
    if (networkId === undefined) return;
    const { p2p, identity } = this.opts;
    const version = await this.claimedVersion(parseVersion(p2p.version));
    if (this.stop.signal.aborted) return;
    const common = {
      networkId,
      identity: identity.identity,
      blsSecretKey: identity.blsSecretKey,
      bls: this.opts.bls,
      version,
      // avalanchego answers a GetPeerList with the validators of the subnets the asker tracks (network.go Peers).
      trackedSubnets: this.opts.trackedSubnets.filter((id) => id.some((b) => b !== 0)).slice(0, MAX_TRACKED_SUBNETS),
      requestTimeoutMs: this.opts.requestTimeoutMs,
      connectTimeoutMs: p2p.connectTimeoutMs,
      maxPeers: p2p.maxPeers,
      dialConcurrency: p2p.dialConcurrency,
      limits: { maxOutstandingRequests: p2p.maxOutstandingRequests },
      reconnect: { minIntervalMs: p2p.reconnectMinIntervalMs, maxMs: p2p.reconnectMaxMs },
      penalties: { threshold: p2p.penaltyThreshold, windowMs: p2p.penaltyWindowMs, cooldownMs: p2p.penaltyCooldownMs, maxTrackedKeys: 100_000 },
      validatorBlsKey: (nodeId: string) => this.opts.directory.blsKeyOf(nodeId),
      logger,
    };
    // p2p.ioShards > 0: the connections live in worker threads (sharded-network.ts).
    const network = p2p.ioShards > 0 ? new ShardedP2PNetwork({ ...common, shards: p2p.ioShards }) : new P2PNetwork(common);
    await network.start();
    if (this.current === 'closed') {
      await network.close();
      return;
    }
    this.network = network;
    this.current = 'running';
    network.on('dialFailed', (nodeId, err) => {
      this.opts.events?.dialFailed?.(err.kind);
      this.markUnreachable(nodeId);
    });
    // Redialled no sooner than 10 s after a drop, and not until a ban's cooldown ends: not waited for.
    network.on('disconnected', (nodeId, reason) => {
      this.markUnreachable(nodeId);
      if (reason.kind !== 'local') this.watchLost(nodeId);
    });
    network.on('banned', (nodeId) => this.markUnreachable(nodeId));
    network.on('connected', (nodeId) => {
      this.unreachable.delete(nodeId);
      this.lost.delete(nodeId);
    });
    network.on('dropped', (_nodeId, kind) => this.opts.events?.dropped?.(kind));
    network.on('discovered', (peer) => {
      if (this.book.learn(peer.nodeId, peer, 'gossip')) this.replanSoon();
    });
    this.opts.directory.onChange(() => {
      this.replanSoon();
      this.discoverSoon();
    });
    logger.info({ nodeId: this.nodeId, networkId, pinnedIdentity: identity.pinned, configuredPeers: p2p.peers.length, ioShards: p2p.ioShards }, 'p2p transport running');
    this.replan();
    void this.discover();
  }

  private markUnreachable(nodeId: string): void {
    this.unreachable.add(nodeId);
    if (this.unreachable.size > MAX_UNREACHABLE) this.unreachable.delete(this.unreachable.values().next().value!);
  }

  /**
   * A validator that dropped (stopped, restarted, upgraded) is redialled on a backoff that grows
   * while it is down, to minutes: it would come back long after the validator did. So, for
   * LOST_WATCH_MS after the drop, info.peers of the upstream node is asked every
   * reconnectMinIntervalMs whether it sees the validator; once it does (the validator is up and
   * connected to its network again), its backoff is forgotten and it is dialled as soon as the
   * throttle allows (P2PNetwork.retrySoon), at the address the node reports.
   */
  private watchLost(nodeId: string): void {
    if (!this.opts.p2p.infoPeers) return;
    this.lost.delete(nodeId);
    this.lost.set(nodeId, Date.now());
    if (this.lost.size > MAX_LOST) this.lost.delete(this.lost.keys().next().value!);
    this.lostTimer ??= setTimeout(() => void this.probeLost(), this.opts.p2p.reconnectMinIntervalMs).unref();
  }

  private async probeLost(): Promise<void> {
    const since = Date.now() - LOST_WATCH_MS;
    for (const [nodeId, at] of this.lost) if (at < since || !this.targetSet.has(nodeId) || this.isConnected(nodeId)) this.lost.delete(nodeId);
    try {
      if (this.lost.size === 0 || this.current !== 'running') return;
      const { peers } = await this.opts.info.peers([...this.lost.keys()], { signal: this.stop.signal });
      const back = peers.filter((p) => this.lost.has(p.nodeId));
      let changed = false;
      for (const p of back) if (p.publicAddress && this.book.learn(p.nodeId, p.publicAddress, 'node')) changed = true;
      if (changed) this.replan();
      for (const p of back) this.network?.retrySoon(p.nodeId);
    } catch (err) {
      if (this.current === 'running') this.opts.logger.debug({ err: messageOf(err) }, 'p2p: info.peers for dropped validators failed');
    } finally {
      this.lostTimer = undefined;
      if (this.lost.size > 0 && this.current === 'running') this.lostTimer = setTimeout(() => void this.probeLost(), this.opts.p2p.reconnectMinIntervalMs).unref();
    }
  }

  /** The node's network ID, asked until it answers; undefined once closed. */
  private async awaitNetworkId(): Promise<number | undefined> {
    let wait = FIRST_RETRY_MS;
    let failures = 0;
    while (!this.stop.signal.aborted) {
      try {
        // Shared with other askers (rememberNetworkId): closing stops this wait, not their call.
        return await untilAborted(this.opts.nodeNetworkId(), this.stop.signal);
      } catch (err) {
        if (this.stop.signal.aborted) return undefined;
        failures++;
        // The first failure and then every tenth: a node down for hours must not fill the log.
        if (failures === 1 || failures % 10 === 0) {
          this.opts.logger.warn({ err: messageOf(err), failures, retryInMs: wait }, 'p2p transport waiting for the node’s network ID (info.getNetworkID)');
        }
      }
      await sleep(wait, this.stop.signal).catch(() => undefined);
      wait = Math.min(MAX_RETRY_MS, wait * 2);
    }
    return undefined;
  }

  /**
   * p2p.version, or the upstream node's own version when it is newer: when a release raises the
   * minimum compatible version, every node closes the connection right after our Handshake and
   * says nothing (version/compatibility.go), while the node warpgate reads from, upgraded by its
   * operator, is by definition one its peers accept. Unanswered: the configured one.
   */
  private async claimedVersion(configured: ClientVersion): Promise<ClientVersion> {
    let text: string;
    try {
      text = await this.opts.info.getNodeVersion({ signal: this.stop.signal });
    } catch (err) {
      this.opts.logger.warn({ err: messageOf(err), claimed: formatVersion(configured) }, 'p2p: info.getNodeVersion failed; claiming p2p.version');
      return configured;
    }
    let node: ClientVersion;
    try {
      node = parseVersion(text);
    } catch {
      this.opts.logger.warn({ nodeVersion: text, claimed: formatVersion(configured) }, 'p2p: the node’s version does not parse; claiming p2p.version');
      return configured;
    }
    if (compareVersions(node, configured) <= 0) return configured;
    this.opts.logger.info({ configured: formatVersion(configured), claimed: formatVersion(node) }, 'p2p: claiming the upstream node’s version, newer than p2p.version');
    return node;
  }

  private replanSoon(): void {
    if (this.replanScheduled || this.current !== 'running') return;
    this.replanScheduled = true;
    setImmediate(() => {
      this.replanScheduled = false;
      this.replan();
    });
  }

  private replan(): void {
    const network = this.network;
    if (!network || this.current !== 'running') return;
    const { targets, wanted } = planTargets(this.opts.directory.candidates(), this.book, this.opts.p2p.maxPeers);
    this.wanted = wanted;
    this.wantedSet = new Set(wanted);
    this.targetSet = new Set(targets.map((t) => t.nodeId));
    network.setWanted(wanted);
    network.setTargets(targets);
  }

  /** An info.peers call soon (not sooner than MIN_DISCOVERY_GAP_MS after the last) when some validator has no address. */
  private discoverSoon(): void {
    if (this.current !== 'running' || this.discovering) return;
    const wait = Math.max(0, this.lastDiscoveryAt + MIN_DISCOVERY_GAP_MS - Date.now());
    clearTimeout(this.discoveryTimer);
    this.discoverySoon = true;
    this.discoveryTimer = setTimeout(() => void this.discover(), wait);
    this.discoveryTimer.unref();
  }

  /** Reads info.peers for the validators wanted or not connected, then schedules the next read. */
  private async discover(): Promise<void> {
    if (this.current !== 'running' || this.discovering) return;
    this.discovering = true;
    this.discoverySoon = false;
    clearTimeout(this.discoveryTimer);
    try {
      const ask = this.opts.directory
        .candidates()
        .map((c) => c.nodeId)
        .filter((id) => !this.isConnected(id))
        .slice(0, MAX_ASKED_NODE_IDS);
      if (ask.length > 0 && this.opts.p2p.infoPeers) {
        // Only a call made counts for the gap: the first set read must not wait for it.
        this.lastDiscoveryAt = Date.now();
        const { peers, skipped } = await this.opts.info.peers(ask, { signal: this.stop.signal });
        let changed = false;
        for (const p of peers) if (p.publicAddress && this.book.learn(p.nodeId, p.publicAddress, 'node')) changed = true;
        this.opts.logger.debug({ asked: ask.length, listed: peers.length, skipped, wanted: this.wanted.length }, 'p2p discovery: info.peers read');
        if (changed) this.replan();
      }
    } catch (err) {
      if (this.current === 'running') this.opts.logger.warn({ err: messageOf(err) }, 'p2p discovery: info.peers failed; addresses from p2p.peers and gossip still serve');
    } finally {
      this.discovering = false;
    }
    // Validators still without an address: a connected peer's PeerList may name them.
    if (this.current === 'running' && this.wanted.length > 0) this.network?.pullPeerList();
    if (this.current === 'running') {
      this.discoveryTimer = setTimeout(() => void this.discover(), this.opts.p2p.discoveryIntervalMs);
      this.discoveryTimer.unref();
    }
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
