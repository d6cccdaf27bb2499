// Opens the state replicas share (redis.url) for one service: the connection, its metrics and
// status figures, and the log lines an operator reads when Redis goes away or comes back. A Redis
// that cannot be used at start (down, wrong password) is an error in the log and in /ready, not
// a failed start: the replica serves with its local state and joins once Redis answers.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../config/config.js';
import { SharedState, type SharedStateHealth } from '../shared-state/index.js';
import { SharedStateMetrics } from './shared-metrics.js';

interface OpenedSharedState {
  state: SharedState;
  metrics: SharedStateMetrics;
}

export async function openSharedState(config: Config, registry: Registry, logger: Logger): Promise<OpenedSharedState | null> {
  const { url, keyPrefix, commandTimeoutMs, connectTimeoutMs, leaseMs } = config.redis;
  if (url === null) return null;
  const log = logger.child({ component: 'shared-state' });
  let state: SharedState | undefined;
  let started = false;
  const metrics = new SharedStateMetrics(registry, () => {
    const health = state?.health ?? ({ state: 'connecting' } as SharedStateHealth);
    return { state: health.state, reason: state?.unavailableReason() ?? null };
  });
  let last: SharedStateHealth['state'] = 'connecting';
  const onHealth = (health: SharedStateHealth): void => {
    // Transitions only, once the start said how it went: a Redis down for an hour is two lines.
    if (health.state === last) return;
    last = health.state;
    if (!started) return;
    if (health.state === 'unavailable') log.error({ reason: health.reason }, 'shared state unavailable: this replica goes on with its own cache and per-replica rate limits');
    else if (health.state === 'connected') log.info('shared state available again: the cache, coalescing and rate limits are shared with the other replicas');
  };
  state = await SharedState.open(
    { url, keyPrefix, commandTimeoutMs, connectTimeoutMs, leaseMs, signatureTtlMs: config.signatureCache.ttlMs },
    { ...metrics.events, onHealth },
  );
  started = true;
  const reason = state.unavailableReason();
  if (reason === null) log.info({ keyPrefix }, 'shared state: connected to Redis');
  else log.error({ reason }, `cannot use Redis at redis.url: ${reason}`);
  return { state, metrics };
}
