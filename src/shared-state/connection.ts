// The one connection to the Redis that replicas share, and its health. Every command has a
// timeout (ioredis' commandTimeout) and fails at once while the connection is down (no offline
// queue, no retries per request): a caller never waits on a dead Redis, it goes on with its local
// state. ioredis reconnects by itself with a capped backoff, so a replica rejoins on its own.
// A second connection carries the pub/sub subscription (a subscribed connection can do nothing
// else).
import { Redis, type RedisOptions } from 'ioredis';

/** Redis as a replica sees it now. */
export type SharedStateHealth =
  | { state: 'connecting' }
  | { state: 'connected' }
  /** Down, refused, or authentication failed: `reason` says which, with no secret in it. */
  | { state: 'unavailable'; reason: string; since: string };

interface ConnectionOptions {
  url: string;
  keyPrefix: string;
  commandTimeoutMs: number;
  connectTimeoutMs: number;
}

interface ConnectionEvents {
  /** The health changed (connected, or unavailable with why). */
  onHealth?(health: SharedStateHealth): void;
  /** One command was sent (the commands-per-aggregation figure). */
  onCommand?(name: string): void;
  /** A message on a channel this connection subscribed to (the channel without its prefix). */
  onMessage?(channel: string, message: string): void;
}

/** A shared-state operation was not done: Redis is down, slow, or refused it. */
export class SharedStateUnavailableError extends Error {
  override name = 'SharedStateUnavailableError';
}

/** Longest wait between reconnection attempts. */
const MAX_RECONNECT_DELAY_MS = 2_000;

export class SharedConnection {
  readonly client: Redis;
  private readonly subscriber: Redis;
  private health: SharedStateHealth = { state: 'connecting' };
  private readonly channels = new Set<string>();
  private closed = false;

  constructor(
    private readonly opts: ConnectionOptions,
    private readonly events: ConnectionEvents = {},
  ) {
    const options: RedisOptions = {
      lazyConnect: true,
      connectTimeout: opts.connectTimeoutMs,
      commandTimeout: opts.commandTimeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (times) => (this.closed ? null : Math.min(50 * 2 ** Math.min(times, 10), MAX_RECONNECT_DELAY_MS)),
      // The subscription is renewed on every 'ready' below.
      autoResubscribe: false,
      connectionName: 'warpgate',
    };
    // ioredis reads host, port, user, password, db and TLS (rediss:) from the URL.
    this.client = new Redis(opts.url, options);
    this.subscriber = new Redis(opts.url, options);
    this.client.on('ready', () => this.setHealth({ state: 'connected' }));
    this.client.on('error', (err: Error) => this.down(err));
    this.client.on('close', () => {
      if (!this.closed && this.health.state === 'connected') this.down(new Error('the connection closed'));
    });
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('ready', () => {
      if (this.channels.size > 0) void this.subscriber.subscribe(...[...this.channels].map((c) => this.key(c))).catch(() => undefined);
    });
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel.startsWith(opts.keyPrefix)) this.events.onMessage?.(channel.slice(opts.keyPrefix.length), message);
    });
  }

  /**
   * Connects, waiting at most connectTimeoutMs. Never rejects: a Redis that cannot be used is
   * reported (health 'unavailable' with why) and retried in the background.
   */
  async connect(): Promise<SharedStateHealth> {
    await Promise.all([this.client.connect().catch((err: unknown) => this.down(err)), this.subscriber.connect().catch(() => undefined)]);
    return this.health;
  }

  get current(): SharedStateHealth {
    return this.health;
  }

  get up(): boolean {
    return this.health.state === 'connected' && this.client.status === 'ready';
  }

  /** The key (or channel) under this deployment's prefix. */
  key(name: string): string {
    return this.opts.keyPrefix + name;
  }

  /** Messages on `channel` (unprefixed) go to onMessage from now on. */
  listen(channel: string): void {
    this.channels.add(channel);
    if (this.subscriber.status === 'ready') void this.subscriber.subscribe(this.key(channel)).catch(() => undefined);
  }

  /**
   * Runs one command (or one pipeline or script call) while Redis is up; rejects with
   * SharedStateUnavailableError when it is down, the command times out, or Redis refuses it.
   */
  async run<T>(name: string, command: (client: Redis) => Promise<T>): Promise<T> {
    if (!this.up) throw new SharedStateUnavailableError(this.describe());
    this.events.onCommand?.(name);
    try {
      return await command(this.client);
    } catch (err) {
      throw new SharedStateUnavailableError(`redis ${name}: ${messageOf(err)}`);
    }
  }

  /** Why shared state is not in use, for /ready and the status page. */
  describe(): string {
    const h = this.health;
    return h.state === 'unavailable' ? h.reason : h.state === 'connecting' ? 'connecting to Redis' : 'connected';
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([quit(this.client), quit(this.subscriber)]);
  }

  private down(err: unknown): void {
    if (this.closed) return;
    const reason = explain(err);
    // "Connection is closed" follows the error that closed it: the first one says why.
    if (this.health.state === 'unavailable' && (this.health.reason === reason || /Connection is closed/.test(reason))) return;
    this.setHealth({ state: 'unavailable', reason, since: new Date().toISOString() });
  }

  private setHealth(health: SharedStateHealth): void {
    this.health = health;
    this.events.onHealth?.(health);
  }
}

async function quit(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    await Promise.race([client.quit(), new Promise((r) => setTimeout(r, 500))]).catch(() => undefined);
  }
  client.disconnect();
}

/** What an operator needs to fix it; ioredis' messages carry no password. */
function explain(err: unknown): string {
  const message = messageOf(err);
  if (/WRONGPASS|NOAUTH|invalid password|invalid username-password/i.test(message)) return `Redis refused the credentials in redis.url (${message})`;
  if (/ECONNREFUSED/.test(message)) return `Redis refused the connection (${message})`;
  if (/ETIMEDOUT|connect timeout/i.test(message)) return `Redis did not answer in time (${message})`;
  return `Redis: ${message}`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
