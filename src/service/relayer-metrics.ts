// The relayer's metrics (docs/relayer.md), registered on the service's registry beside its
// other metrics (metrics.ts). Counters and histograms come from the relayer's events as they
// happen: a message reaching a state (delivered, skipped, parked, failed), a retry, an
// aggregation (timed by the SignMessage wiring itself), a key's balance. Gauges of the present
// (checkpoint height, lag, in flight, parked) read the relayer's routes at scrape time, so they
// are never stale. A key whose balance falls below relayer.lowBalanceGwei is logged once when it
// becomes low (and once when it recovers), not at every reading.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { MessageRecord, RouteState } from '../relayer/ports.js';

/**
 * What the engine (relayer/engine.ts) and the EVM destinations report. The engine calls
 * `onRecord` with each message's record as it reaches a state, and `onRetry` for a step that
 * will be tried again; the destinations call `onKeyBalance` whenever they read a key's balance.
 */
export interface RelayerEvents {
  onRecord(record: MessageRecord): void;
  onRetry(route: string, stage: string): void;
  onKeyBalance(chain: string, address: string, balanceWei: bigint): void;
}

/** What the status page shows of the relayer beside its routes: counts since the start. */
interface RelayerFigures {
  delivered: number;
  skipped: number;
  parked: number;
  failed: number;
  retries: number;
  lowBalanceKeys: { chain: string; address: string; balanceWei: string }[];
}

const WEI_PER_GWEI = 1_000_000_000n;
/** Outcomes whose count the metrics keep: the states a message comes to rest in, or waits in. */
const OUTCOMES = new Set(['delivered', 'skipped', 'parked', 'failed']);

export class RelayerMetrics {
  readonly events: RelayerEvents;
  private readonly figures = { delivered: 0, skipped: 0, parked: 0, failed: 0, retries: 0 };
  private readonly low = new Map<string, { chain: string; address: string; balanceWei: bigint }>();
  private readonly aggregationSeconds: Histogram<'route' | 'outcome'>;
  /** Until readLiveFrom, the route gauges read nothing. */
  private routes: () => readonly RouteState[] = () => [];

  constructor(registry: Registry, lowBalanceGwei: number, logger: Logger) {
    const registers = [registry];
    const messages = new Counter({ name: 'warpgate_relayer_messages_total', help: 'Messages that reached a state, by route and outcome (delivered, skipped, parked, failed)', labelNames: ['route', 'outcome'], registers });
    const latency = new Histogram({
      name: 'warpgate_relayer_delivery_seconds',
      help: 'From a message\'s source log being seen to its delivery receipt, by route',
      labelNames: ['route'],
      buckets: [0.5, 1, 2, 3, 5, 8, 13, 21, 34, 60, 120, 300, 900],
      registers,
    });
    const gas = new Counter({ name: 'warpgate_relayer_gas_used_total', help: 'Gas used by delivery transactions that delivered, by route', labelNames: ['route'], registers });
    const retries = new Counter({ name: 'warpgate_relayer_retries_total', help: 'Steps of a message tried again later (sign, deliver, read), by route and stage', labelNames: ['route', 'stage'], registers });
    this.aggregationSeconds = new Histogram({
      name: 'warpgate_relayer_aggregation_seconds',
      help: 'Signing a relayed message with the in-process aggregator, by route and outcome',
      labelNames: ['route', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers,
    });
    const balance = new Gauge({ name: 'warpgate_relayer_key_balance_gwei', help: 'A delivery key\'s balance on a destination chain, in gwei, as last read', labelNames: ['chain', 'address'], registers });
    const lowGauge = new Gauge({ name: 'warpgate_relayer_key_low_balance', help: 'Whether a delivery key\'s balance on a chain is below relayer.lowBalanceGwei (1) or not (0)', labelNames: ['chain', 'address'], registers });
    const routes = (): readonly RouteState[] => this.routes();
    new Gauge({
      name: 'warpgate_relayer_checkpoint_height',
      help: 'A route\'s checkpoint: every message in blocks at or below it has a durable state',
      labelNames: ['route'],
      registers,
      collect() {
        this.reset();
        for (const r of routes()) if (r.checkpoint !== undefined) this.set({ route: r.id }, r.checkpoint);
      },
    });
    new Gauge({
      name: 'warpgate_relayer_checkpoint_lag_blocks',
      help: 'The source\'s newest accepted block minus the route\'s checkpoint',
      labelNames: ['route'],
      registers,
      collect() {
        this.reset();
        for (const r of routes()) if (r.checkpoint !== undefined && r.head !== undefined) this.set({ route: r.id }, Math.max(0, r.head - r.checkpoint));
      },
    });
    new Gauge({
      name: 'warpgate_relayer_in_flight',
      help: 'A route\'s messages being signed or delivered now',
      labelNames: ['route'],
      registers,
      collect() {
        this.reset();
        for (const r of routes()) this.set({ route: r.id }, r.inFlight);
      },
    });
    new Gauge({
      name: 'warpgate_relayer_parked',
      help: 'A route\'s parked messages (retried from the store on a slow schedule)',
      labelNames: ['route'],
      registers,
      collect() {
        this.reset();
        for (const r of routes()) this.set({ route: r.id }, r.parked);
      },
    });
    new Gauge({
      name: 'warpgate_relayer_route_up',
      help: 'Whether a route runs (1) or has a problem, such as an RPC that does not answer (0); its reason is in /ready',
      labelNames: ['route'],
      registers,
      collect() {
        this.reset();
        for (const r of routes()) this.set({ route: r.id }, r.problem === undefined ? 1 : 0);
      },
    });

    const threshold = BigInt(lowBalanceGwei) * WEI_PER_GWEI;
    this.events = {
      onRecord: (record) => {
        if (!OUTCOMES.has(record.status)) return;
        const outcome = record.status as keyof typeof this.figures;
        this.figures[outcome]++;
        messages.inc({ route: record.route, outcome });
        if (record.status !== 'delivered') return;
        latency.observe({ route: record.route }, Math.max(0, record.updatedAt - record.firstSeenAt) / 1000);
        if (record.gasUsed !== undefined && /^\d+$/.test(record.gasUsed)) gas.inc({ route: record.route }, Number(record.gasUsed));
      },
      onRetry: (route, stage) => {
        this.figures.retries++;
        retries.inc({ route, stage });
      },
      onKeyBalance: (chain, address, balanceWei) => {
        const labels = { chain, address };
        balance.set(labels, Number(balanceWei / WEI_PER_GWEI));
        const isLow = balanceWei < threshold;
        lowGauge.set(labels, isLow ? 1 : 0);
        const key = `${chain}/${address}`;
        const wasLow = this.low.has(key);
        if (isLow) this.low.set(key, { chain, address, balanceWei });
        else this.low.delete(key);
        if (isLow && !wasLow) {
          logger.warn({ chain, address, balanceWei: balanceWei.toString(), lowBalanceGwei }, 'relayer key balance is low: fund it, or deliveries from it will fail');
        } else if (!isLow && wasLow) logger.info({ chain, address }, 'relayer key balance is above relayer.lowBalanceGwei again');
      },
    };
  }

  /** The relayer's routes, read at every scrape. */
  readLiveFrom(routes: () => readonly RouteState[]): void {
    this.routes = routes;
  }

  /** One aggregation of a relayed message (the SignMessage wiring times it). */
  aggregation(route: string, ms: number, ok: boolean): void {
    this.aggregationSeconds.observe({ route, outcome: ok ? 'success' : 'error' }, ms / 1000);
  }

  snapshot(): RelayerFigures {
    return { ...this.figures, lowBalanceKeys: [...this.low.values()].map((k) => ({ chain: k.chain, address: k.address, balanceWei: k.balanceWei.toString() })) };
  }
}
