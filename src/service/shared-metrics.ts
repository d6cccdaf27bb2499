// The metrics and status figures of the state replicas share in Redis (shared-state/): whether
// Redis can be used now, operations done locally because it could not, the shared signature
// cache's reads, the coalescing of identical requests across replicas, and Redis commands sent.
// Registered on the service's registry beside its other metrics (metrics.ts).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { SharedStateStatus } from '../server/status/report.js';
import type { SharedStateEvents } from '../shared-state/index.js';

type SharedStateFigures = SharedStateStatus;

/** What a replica without Redis, or one that has just started, has to show: nothing yet. */
export function noSharedFigures(): Omit<SharedStateFigures, 'state' | 'reason'> {
  return { sharedCacheHits: 0, sharedCacheMisses: 0, sharedCacheInvalid: 0, coalesced: { holder: 0, waiter: 0, takeover: 0 }, fallbacks: 0, commands: 0 };
}

export class SharedStateMetrics {
  readonly events: SharedStateEvents;
  private readonly figures = noSharedFigures();

  constructor(
    registry: Registry,
    private readonly health: () => { state: SharedStateFigures['state']; reason: string | null },
  ) {
    const registers = [registry];
    new Gauge({
      name: 'warpgate_shared_state_up',
      help: 'Whether the Redis shared by replicas can be used now (1), or this replica runs on its local state (0); absent without redis.url',
      registers,
      collect() {
        const { state } = health();
        if (state !== 'disabled') this.set(state === 'connected' ? 1 : 0);
      },
    });
    const unavailable = new Counter({ name: 'warpgate_shared_state_unavailable_total', help: 'Operations done with local state because Redis could not be used, by operation', labelNames: ['operation'], registers });
    const cache = new Counter({ name: 'warpgate_shared_cache_total', help: 'Reads of the shared signature cache (hit: signatures found), and entries dropped as malformed or failing their check (invalid)', labelNames: ['result'], registers });
    const coalesced = new Counter({ name: 'warpgate_coalesced_requests_total', help: 'Aggregations and the cross-replica coalescing: collected under the lease (holder), answered from another replica\'s collection (waiter), lease taken over from a replica that died or stalled (takeover)', labelNames: ['role'], registers });
    const commands = new Counter({ name: 'warpgate_redis_commands_total', help: 'Redis commands (and pipelines, scripts) sent', registers });
    const f = this.figures;
    this.events = {
      onCommand: () => {
        f.commands++;
        commands.inc();
      },
      onFallback: (operation) => {
        f.fallbacks++;
        unavailable.inc({ operation });
      },
      onSharedCache: (result, count = 1) => {
        if (result === 'hit') f.sharedCacheHits += count;
        else if (result === 'miss') f.sharedCacheMisses += count;
        else f.sharedCacheInvalid += count;
        cache.inc({ result }, count);
      },
      onCoalesced: (role) => {
        f.coalesced[role]++;
        coalesced.inc({ role });
      },
    };
  }

  snapshot(): SharedStateFigures {
    return { ...this.health(), ...this.figures, coalesced: { ...this.figures.coalesced } };
  }
}
