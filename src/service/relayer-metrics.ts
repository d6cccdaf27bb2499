// The relayer's metrics (docs/relayer.md), registered on the service's registry beside its
// other metrics (metrics.ts). Counters and histograms come from the relayer's events as they
// happen: a message reaching a state (delivered, skipped, parked, failed), a retry, an
// aggregation (timed by the SignMessage wiring itself), a key's balance. Gauges of the present
// (checkpoint height, lag, in flight, parked) read the relayer's routes at scrape time, so they
// are never stale. A key whose balance falls below relayer.lowBalanceGwei is logged once when it
// becomes low (and once when it recovers), not at every reading.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { RelayerEvents as EngineEvents } from '../relayer/events.js';
import type { RouteState } from '../relayer/ports.js';
import type { RelayerStatus } from '../server/status/report.js';

/**
 * What the engine (relayer/events.ts: outcomes, delivery latency, gas, retries) and the EVM
 * destinations (`onKeyBalance`, whenever they read a key's balance) report. Aggregations are
 * timed by the SignMessage wiring (`aggregation` below), which also sees the failed ones.
 */
export type RelayerEvents = EngineEvents & {
  onKeyBalance(chain: string, address: string, balanceWei: bigint): void;
};

/** What the Redis leases report for the metrics (store/redis-leases.ts's RouteLeaseEvents, both required). */
export interface RelayerLeaseEvents {
  onLease(route: string, change: 'acquired' | 'takeover' | 'lost' | 'released'): void;
  onInFlightAtTakeover(route: string, count: number): void;
}

/** What the status page shows of the relayer beside its routes: counts since the start. */
type RelayerFigures = Omit<RelayerStatus, 'routes'>;

const WEI_PER_GWEI = 1_000_000_000n;

export class RelayerMetrics {
  readonly events: RelayerEvents;
  readonly leaseEvents: RelayerLeaseEvents;
  private readonly figures = { delivered: 0, deliveredByOthers: 0, skipped: 0, parked: 0, retries: 0, takeovers: 0, inFlightAtTakeover: 0 };
  private readonly low = new Map<string, { chain: string; address: string; balanceWei: bigint }>();
  private readonly aggregationSeconds: Histogram<'route' | 'outcome'>;
  /** Until readLiveFrom, the route gauges read nothing. */
  private routes: () => readonly RouteState[] = () => [];

  constructor(registry: Registry, lowBalanceGwei: number, logger: Logger) {
    const registers = [registry];
    const messages = new Counter({ name: 'warpgate_relayer_messages_total', help: 'Messages that reached an outcome, by route and outcome (delivered, delivered-by-other, skipped, parked)', labelNames: ['route', 'outcome'], registers });
    const latency = new Histogram({
      name: 'warpgate_relayer_delivery_seconds',
      help: 'From a message\'s source log being seen to its delivery receipt, by route',
      labelNames: ['route'],
      buckets: [0.5, 1, 2, 3, 5, 8, 13, 21, 34, 60, 120, 300, 900],
      registers,
    });
    const gas = new Counter({ name: 'warpgate_relayer_gas_used_total', help: 'Gas used by delivery transactions that delivered, by route', labelNames: ['route'], registers });
    const retries = new Counter({ name: 'warpgate_relayer_retries_total', help: 'Attempts of a message that failed and will be tried again (in a moment, or later from the store), by route', labelNames: ['route'], registers });
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

    new Gauge({
      name: 'warpgate_relayer_route_held',
      help: 'Whether this relayer holds a route\'s lease and delivers its messages (1) or stands by (0); always 1 without redis.url',
      labelNames: ['route'],
      registers,
      collect() {
        this.reset();
        for (const r of routes()) this.set({ route: r.id }, r.held ? 1 : 0);
      },
    });
    const leaseChanges = new Counter({
      name: 'warpgate_relayer_lease_changes_total',
      help: 'Route leases acquired (free), taken over (from a holder that stopped renewing), lost and released, by route',
      labelNames: ['route', 'change'],
      registers,
    });
    const inFlightAtTakeover = new Counter({
      name: 'warpgate_relayer_in_flight_at_takeover_total',
      help: 'Deliveries the previous holder had submitted and not finished when this relayer took the route over (waited for, not sent again)',
      labelNames: ['route'],
      registers,
    });
    this.leaseEvents = {
      onLease: (route, change) => {
        leaseChanges.inc({ route, change });
        if (change === 'takeover') this.figures.takeovers++;
      },
      onInFlightAtTakeover: (route, count) => {
        inFlightAtTakeover.inc({ route }, count);
        this.figures.inFlightAtTakeover += count;
      },
    };

    const threshold = BigInt(lowBalanceGwei) * WEI_PER_GWEI;
    this.events = {
      outcome: (route, outcome) => {
        this.figures[outcome === 'delivered-by-other' ? 'deliveredByOthers' : outcome]++;
        messages.inc({ route, outcome });
      },
      deliveryLatency: (route, seconds) => latency.observe({ route }, seconds),
      gasUsed: (route, used) => gas.inc({ route }, Number(used)),
      retry: (route) => {
        this.figures.retries++;
        retries.inc({ route });
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
