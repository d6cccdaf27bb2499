// The two rate-limit budgets: anonymous requests per client IP, and requests carrying an API key
// per key. The gateway cannot tell a real key from an invented one (only the upstream can), so a
// keyed request is also charged to its IP at the keyed rate: inventing keys gains at most that.
import { RateLimiter, type TakeResult } from '../util/rate-limit.js';
import { keyFingerprint } from './client-identity.js';

interface ClientLimitOptions {
  /** Per client IP without an API key; undefined or 0: no limit. */
  requestsPerMinute?: number;
  /** Per API key (and per IP for keyed requests); undefined or 0: no limit. */
  keyedRequestsPerMinute?: number;
  maxKeys?: number;
}

export class ClientLimits {
  private readonly anonymous: RateLimiter | undefined;
  private readonly keyed: RateLimiter | undefined;

  constructor(opts: ClientLimitOptions) {
    const maxKeys = opts.maxKeys ?? 100_000;
    this.anonymous = opts.requestsPerMinute ? new RateLimiter({ requestsPerMinute: opts.requestsPerMinute, maxKeys }) : undefined;
    this.keyed = opts.keyedRequestsPerMinute ? new RateLimiter({ requestsPerMinute: opts.keyedRequestsPerMinute, maxKeys }) : undefined;
  }

  take(client: { apiKey: string | undefined; ip: string }, cost = 1): TakeResult {
    if (client.apiKey === undefined) return this.anonymous?.take(`ip ${client.ip}`, cost) ?? { ok: true };
    if (!this.keyed) return { ok: true };
    const byKey = this.keyed.take(`key ${keyFingerprint(client.apiKey)}`, cost);
    if (!byKey.ok) return byKey;
    return this.keyed.take(`ip ${client.ip}`, cost);
  }

  clear(): void {
    this.anonymous?.clear();
    this.keyed?.clear();
  }
}
