// The relayer's state in Redis, opened from `redis.url`: one connection (shared-state's, with its
// timeouts, health and reconnection) carrying the store and the route leases. The relayer is
// handed `store` and `leases` as it would be the embedded store and LocalLeases.
import { SharedConnection, type SharedStateHealth } from '../../shared-state/connection.js';
import { RedisRouteLeases, type RedisLeaseOptions, type RouteLeaseEvents } from './redis-leases.js';
import { RedisRelayerStore } from './redis-store.js';

interface RedisRelayerStateOptions {
  url: string;
  /** redis.keyPrefix: the deployment's prefix; the relayer's keys live under `<prefix>{relayer}:v1:`. */
  keyPrefix: string;
  commandTimeoutMs: number;
  connectTimeoutMs: number;
  lease: Omit<RedisLeaseOptions, 'inFlight' | 'namespace'>;
}

interface RedisRelayerStateEvents extends RouteLeaseEvents {
  onHealth?(health: SharedStateHealth): void;
}

export interface RedisRelayerState {
  readonly store: RedisRelayerStore;
  readonly leases: RedisRouteLeases;
  health(): SharedStateHealth;
  /** Releases the leases, then closes the connection. */
  close(): Promise<void>;
}

/** Connects (waiting at most connectTimeoutMs; a Redis down is retried in the background: until then nothing is held). */
export async function openRedisRelayerState(opts: RedisRelayerStateOptions, events: RedisRelayerStateEvents = {}): Promise<RedisRelayerState> {
  const conn = new SharedConnection(opts, { onHealth: events.onHealth });
  await conn.connect();
  const store = new RedisRelayerStore(conn, { ownsConnection: true });
  const leases = new RedisRouteLeases(conn, { ...opts.lease, inFlight: (route) => store.count(route, 'submitted') }, events);
  return {
    store,
    leases,
    health: () => conn.current,
    close: async () => {
      await leases.stop();
      await store.close();
    },
  };
}
