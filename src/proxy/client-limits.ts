// The two rate-limit budgets: anonymous requests per client IP, and requests carrying an API key
// per key. The gateway cannot tell a real key from an invented one (only the upstream can), so a
// keyed request is also charged to its IP at the keyed rate: inventing keys gains at most that.
// The budgets are this process's unless shared ones (replicas sharing Redis) are given.
import { localBudgets, type Budget, type BudgetFactory, type TakeResult } from '../util/rate-limit.js';
import { keyFingerprint } from './client-identity.js';

interface ClientLimitOptions {
  /** Per client IP without an API key; undefined or 0: no limit. */
  requestsPerMinute?: number;
  /** Per API key (and per IP for keyed requests); undefined or 0: no limit. */
  keyedRequestsPerMinute?: number;
  /** Where budgets are kept; default: in this process. */
  budgets?: BudgetFactory;
}

export class ClientLimits {
  private readonly anonymous: Budget | undefined;
  private readonly keyed: Budget | undefined;

  constructor(opts: ClientLimitOptions) {
    const budgets = opts.budgets ?? localBudgets;
    this.anonymous = opts.requestsPerMinute ? budgets('proxy', opts.requestsPerMinute) : undefined;
    this.keyed = opts.keyedRequestsPerMinute ? budgets('proxy-keyed', opts.keyedRequestsPerMinute) : undefined;
  }

  async take(client: { apiKey: string | undefined; ip: string }, cost = 1): Promise<TakeResult> {
    if (client.apiKey === undefined) return (await this.anonymous?.take(`ip ${client.ip}`, cost)) ?? { ok: true };
    if (!this.keyed) return { ok: true };
    const byKey = await this.keyed.take(`key ${keyFingerprint(client.apiKey)}`, cost);
    if (!byKey.ok) return byKey;
    return this.keyed.take(`ip ${client.ip}`, cost);
  }
}
