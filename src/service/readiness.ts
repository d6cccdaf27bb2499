// Readiness and connected stake. The service is ready when its node answers and, for every
// subnet in readiness.subnets, the validators connected over either transport (a signer peer or
// an avalanchego peer connection) hold at least readiness.quorumPercentage of the subnet's total
// weight (keyless weight included, as quorum counts it). The same arithmetic feeds the
// connected-stake gauge at every scrape.
import { quorumReached } from '../validators/quorum.js';
import type { CanonicalSet } from '../validators/canonical-set.js';
import type { ValidatorSets } from '../aggregator/aggregator.js';
import type { NodeCallEvent } from '../node/transport.js';

interface SubnetStake {
  subnetId: string;
  connectedWeight: string;
  totalWeight: string;
  /** Connected weight / total weight, in percent with two decimals. */
  connectedPercent: number;
}

interface ReadinessReport {
  ready: boolean;
  reasons: string[];
  subnets: SubnetStake[];
  /** Connected validators per transport, and the p2p transport's state: what an operator looks at first when stake is short. */
  peers?: unknown;
  /**
   * With redis.url: "connected", or "shared state unavailable: …" with why. Not a reason to be
   * unready: every replica would leave the balancer at once when Redis goes, while each still
   * serves with its local state.
   */
  sharedState?: string;
}

interface ReadinessOptions {
  /** Null when upstreams.node is not configured: never ready. */
  node: { getHeight(): Promise<unknown> } | null;
  sets: ValidatorSets;
  /** Connected over either transport. */
  peers: { isConnected(publicKeyHex: string): boolean };
  /** What `peers` in the report says. */
  describePeers?: () => unknown;
  /** readiness.subnets: each cb58 ID as configured (`name`) and its bytes. */
  subnets: readonly { name: string; id: Uint8Array }[];
  quorumPercentage: number;
  /**
   * How recent the service's own last call to the node must be for checkHeld() to judge the node
   * by it instead of asking (platform.getHeight). Default 60 s.
   */
  nodeFreshMs?: number;
  /** The set the service holds of a subnet, reading nothing (the validator directory's): what checkHeld() judges by. */
  held?: (subnetId: Uint8Array) => CanonicalSet | undefined;
  /** Longest a metrics scrape waits for a validator set before using the last one it saw. */
  scrapeWaitMs?: number;
  /** With redis.url: why shared state is unavailable, null when connected. */
  sharedState?: () => string | null;
}

export class Readiness {
  /** The last set fetched per subnet, so a scrape during a node outage still reports stake. */
  private readonly lastSets = new Map<string, CanonicalSet>();
  /** The outcome of the service's last call to the node (any method), as its transport reports it. */
  private lastNodeCall: { at: number; failure?: string } | undefined;

  constructor(private readonly opts: ReadinessOptions) {}

  /** A call the service made to its node (the JSON-RPC transport's observer): whether the node answered. */
  nodeCall(e: NodeCallEvent): void {
    // The caller's deadline says nothing of the node; an error answer is an answer.
    if (e.error === 'aborted') return;
    const down = e.error === 'timeout' || e.error === 'unreachable';
    this.lastNodeCall = { at: Date.now(), ...(down ? { failure: `${e.error} on ${e.method}` } : {}) };
  }

  /** /ready: the node answers, and each readiness.subnets set (read now, or the set cache's) has its quorum connected. */
  check(): Promise<ReadinessReport> {
    return this.evaluate((id) => this.opts.sets.get(id, 0), false);
  }

  /**
   * The same judgement over the sets the service already holds (`held`), for the status page: a
   * look reads no validator set, whoever looks and however often. A subnet whose set was never
   * read is a reason, not a read; the node is judged by the service's own last call to it when
   * that is recent (the refresh of readiness.subnets keeps it so), and asked only otherwise.
   */
  checkHeld(): Promise<ReadinessReport> {
    const held = this.opts.held;
    if (!held) return this.check();
    return this.evaluate(async (id) => {
      const set = held(id);
      if (!set) throw new Error('its validator set has not been read yet');
      return set;
    }, true);
  }

  private async evaluate(setOf: (subnetId: Uint8Array) => Promise<CanonicalSet>, recentNodeCallWillDo: boolean): Promise<ReadinessReport> {
    const reasons: string[] = [];
    const subnets: SubnetStake[] = [];
    const shared = this.opts.sharedState ? { sharedState: this.opts.sharedState() ?? 'connected' } : {};
    const peers = { ...(this.opts.describePeers ? { peers: this.opts.describePeers() } : {}), ...shared };
    if (!this.opts.node) return { ready: false, reasons: ['upstreams.node is not configured'], subnets, ...peers };
    const last = this.lastNodeCall;
    const ageMs = last === undefined ? Infinity : Date.now() - last.at;
    if (recentNodeCallWillDo && last && ageMs < (this.opts.nodeFreshMs ?? 60_000)) {
      if (last.failure) return { ready: false, reasons: [`node does not answer: ${last.failure}, ${Math.round(ageMs / 1000)} s ago`], subnets, ...peers };
    } else {
      try {
        await this.opts.node.getHeight();
      } catch (err) {
        return { ready: false, reasons: [`node does not answer: ${messageOf(err)}`], subnets, ...peers };
      }
    }
    for (const { name, id } of this.opts.subnets) {
      try {
        const set = await setOf(id);
        this.lastSets.set(name, set);
        const stake = this.stakeOf(name, set);
        subnets.push(stake);
        if (!quorumReached(BigInt(stake.connectedWeight), set.totalWeight, this.opts.quorumPercentage)) {
          reasons.push(`subnet ${name}: connected stake ${stake.connectedPercent}% is below ${this.opts.quorumPercentage}%`);
        }
      } catch (err) {
        reasons.push(`subnet ${name}: ${messageOf(err)}`);
      }
    }
    return { ready: reasons.length === 0, reasons, subnets, ...peers };
  }

  /**
   * Connected stake of each configured subnet for the metrics gauge: the current set when it
   * comes within scrapeWaitMs (the set cache usually has it), else the last set seen; subnets
   * whose set was never seen are left out.
   */
  async connectedStake(): Promise<SubnetStake[]> {
    const wait = this.opts.scrapeWaitMs ?? 1_000;
    const out: SubnetStake[] = [];
    for (const { name, id } of this.opts.subnets) {
      const set = await withinMs(this.opts.sets.get(id, 0), wait).catch(() => undefined);
      if (set) this.lastSets.set(name, set);
      const known = set ?? this.lastSets.get(name);
      if (known) out.push(this.stakeOf(name, known));
    }
    return out;
  }

  private stakeOf(name: string, set: CanonicalSet): SubnetStake {
    let connected = 0n;
    for (const v of set.validators) if (this.opts.peers.isConnected(v.publicKeyHex)) connected += v.weight;
    const pct = set.totalWeight === 0n ? 0 : Number((connected * 10_000n) / set.totalWeight) / 100;
    return { subnetId: name, connectedWeight: connected.toString(), totalWeight: set.totalWeight.toString(), connectedPercent: pct };
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Resolves with `p`, or rejects after `ms` (the timer never outlives the race). */
function withinMs<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
