// The status model behind GET /status and /status.json: the last aggregations (a bounded list fed
// by the aggregator's events), counts since start, and at each look the present read from the
// parts themselves (readiness, the validator sets the service holds, connected peers per
// transport, the signature cache, the worker pool). A look reads no validator set: it shows the
// sets the service already holds (read by aggregations of subnets it serves, /ready, and the
// refresh of readiness.subnets), so nobody can make the service read, admit or dial a subnet's
// validators by looking (an aggregation a subnet refused by aggregation.allowedSigningSubnets
// names no subnet in its event). Snapshots are shared: whoever asks within refreshMs of the last
// one gets it again, so any number of open pages costs one snapshot per refreshMs.
import type { AggregationEvent } from '../aggregator/aggregator.js';
import type { CanonicalSet } from '../validators/canonical-set.js';
import { idToString, parseCb58Id } from '../warp/cb58.js';
import { noSharedFigures } from './shared-metrics.js';
import type { AggregationOutcome, RecentAggregation, RelayerStatus, SharedStateStatus, SilentValidator, StatusReport, SubnetStatus, ValidatorStatus } from '../server/status/report.js';
import type { AnswerTracker } from './answer-tracker.js';
import { AggregationTimelineRing } from './aggregation-timeline.js';

/** A signer transport as the status page sees it: how many are connected, and whether a validator is. */
export interface StatusTransport {
  name: string;
  connectedCount(): number;
  isConnected(v: { publicKeyHex: string; nodeIds: readonly string[] }): boolean;
}

interface StatusOptions {
  version: string;
  refreshMs: number;
  maxRecent: number;
  validatorsPerSubnet: number;
  /** readiness.subnets (cb58) and the quorum /ready asks of them. */
  trackedSubnets: readonly string[];
  quorumPercentage: number;
  /** The clock of the timeline's intervals (tests move it). */
  now?: () => number;
}

/** The running parts a look reads (given once they exist: the aggregator is built after this model, which it reports to). */
interface StatusSources {
  /** Readiness judged by the sets held (Readiness.checkHeld): no validator set is read. */
  readiness: () => Promise<{ ready: boolean; reasons: string[] }>;
  /** The set the service holds of a subnet, reading nothing (ValidatorDirectory.heldSet). */
  heldSet: (subnetId: Uint8Array) => CanonicalSet | undefined;
  transports: readonly StatusTransport[];
  answers: AnswerTracker;
  /** avalanchego validators that drop requests without an answer (service/silent-validators.ts). */
  silent?: () => SilentValidator[];
  aggregationsInFlight: () => number;
  cache: () => { messages: number; signatures: number; maxMessages: number; maxSignatures: number };
  workers: () => { threads: number; queued: number; maxQueue: number };
  /** Absent without redis.url. */
  sharedState?: () => SharedStateStatus;
  /** Absent without relayer.routes. */
  relayer?: () => RelayerStatus;
}

const NO_SHARED_STATE: SharedStateStatus = { state: 'disabled', reason: null, ...noSharedFigures() };

export class StatusModel {
  private readonly startedAt = Date.now();
  private readonly recent: RecentAggregation[] = [];
  /** The last 15 minutes, per interval: a fixed ring, whatever the load. */
  private readonly timeline: AggregationTimelineRing;
  private readonly byOutcome: Record<AggregationOutcome, number> = { success: 0, quorum_not_reached: 0, error: 0 };
  private cacheHits = 0;
  private cacheMisses = 0;
  private last: { at: number; report: Promise<StatusReport> } | undefined;
  private live: StatusSources | undefined;

  constructor(private readonly opts: StatusOptions) {
    this.timeline = new AggregationTimelineRing(undefined, undefined, opts.now);
  }

  /** The parts every look reads from now on. */
  readLiveFrom(sources: StatusSources): void {
    this.live = sources;
  }

  /** The aggregator's events this model needs (the service combines them with the metrics'). */
  readonly aggregatorEvents = {
    onCache: (hit: boolean): void => {
      if (hit) this.cacheHits++;
      else this.cacheMisses++;
    },
    onAggregation: (e: AggregationEvent): void => {
      this.byOutcome[e.outcome]++;
      this.timeline.record(e.outcome, e.ms);
      const success = e.outcome === 'success';
      this.recent.unshift({
        at: new Date().toISOString(),
        subnetId: e.subnetId ? idToString(e.subnetId) : null,
        outcome: e.outcome,
        ms: e.ms,
        idealMs: e.idealMs ?? null,
        signers: success ? (e.signers ?? null) : null,
        signedWeight: e.signedWeight?.toString() ?? null,
        totalWeight: e.totalWeight?.toString() ?? null,
        error: e.error ?? null,
      });
      if (this.recent.length > this.opts.maxRecent) this.recent.length = this.opts.maxRecent;
    },
  };

  /** The report as of now, or of less than refreshMs ago. */
  report(): Promise<StatusReport> {
    const now = Date.now();
    if (this.last && now - this.last.at < this.opts.refreshMs) return this.last.report;
    if (!this.live) return Promise.reject(new Error('the service is still starting'));
    const report = this.build(this.live);
    this.last = { at: now, report };
    // A failed look is not kept: the next one tries again.
    report.catch(() => {
      if (this.last?.report === report) this.last = undefined;
    });
    return report;
  }

  private async build(src: StatusSources): Promise<StatusReport> {
    const { opts } = this;
    const [readiness, subnets] = await Promise.all([src.readiness().catch((err: unknown) => ({ ready: false, reasons: [messageOf(err)] })), this.subnets(src)]);
    const byTransport = Object.fromEntries(src.transports.map((t) => [t.name, t.connectedCount()]));
    return {
      version: opts.version,
      startedAt: new Date(this.startedAt).toISOString(),
      uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000),
      refreshMs: opts.refreshMs,
      ready: readiness.ready,
      reasons: readiness.reasons,
      peers: { connected: Object.values(byTransport).reduce((a, n) => a + n, 0), byTransport, silent: src.silent?.() ?? [] },
      subnets,
      aggregations: {
        inFlight: src.aggregationsInFlight(),
        total: this.byOutcome.success + this.byOutcome.quorum_not_reached + this.byOutcome.error,
        byOutcome: { ...this.byOutcome },
        recent: [...this.recent],
        timeline: this.timeline.snapshot(),
      },
      signatureCache: { ...src.cache(), hits: this.cacheHits, misses: this.cacheMisses },
      workers: src.workers(),
      sharedState: src.sharedState?.() ?? NO_SHARED_STATE,
      ...(src.relayer ? { relayer: src.relayer() } : {}),
    };
  }

  /** readiness.subnets first, then the subnets of the recent aggregations, each once. */
  private async subnets(src: StatusSources): Promise<SubnetStatus[]> {
    const tracked = new Set(this.opts.trackedSubnets);
    const names = [...new Set([...this.opts.trackedSubnets, ...this.recent.flatMap((r) => (r.subnetId ? [r.subnetId] : []))])];
    return names.map((name) => this.subnet(src, name, tracked.has(name)));
  }

  private subnet(src: StatusSources, name: string, tracked: boolean): SubnetStatus {
    const base = { subnetId: name, tracked, quorumPercentage: this.opts.quorumPercentage };
    const set = src.heldSet(parseCb58Id(name));
    if (!set) return { ...base, error: 'the service holds no validator set of this subnet now (the page reads none)', validators: [] };
    const rows = set.validators.map((v) => this.validator(src, v, set.totalWeight));
    let connected = 0n;
    for (const [i, v] of set.validators.entries()) if (rows[i]!.connected) connected += v.weight;
    const heaviest = [...rows].sort((a, b) => cmpWeightDesc(a.weight, b.weight)).slice(0, this.opts.validatorsPerSubnet);
    return {
      ...base,
      totalWeight: set.totalWeight.toString(),
      connectedWeight: connected.toString(),
      connectedPercent: percent(connected, set.totalWeight),
      validatorCount: rows.length,
      connectedCount: rows.filter((r) => r.connected).length,
      validators: heaviest,
    };
  }

  private validator(src: StatusSources, v: CanonicalSet['validators'][number], total: bigint): ValidatorStatus {
    const transport = src.transports.find((t) => t.isConnected(v));
    const { last, penalties } = src.answers.get(v.publicKeyHex);
    return {
      nodeIds: v.nodeIds,
      publicKey: v.publicKeyHex,
      weight: v.weight.toString(),
      weightPercent: percent(v.weight, total),
      connected: transport !== undefined,
      transport: transport?.name ?? null,
      lastAnswer: last,
      penalties,
    };
  }
}

/** part / whole in percent, two decimals. */
function percent(part: bigint, whole: bigint): number {
  return whole === 0n ? 0 : Number((part * 10_000n) / whole) / 100;
}

function cmpWeightDesc(a: string, b: string): number {
  const d = BigInt(b) - BigInt(a);
  return d > 0n ? 1 : d < 0n ? -1 : 0;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
