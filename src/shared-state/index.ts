// State that replicas of one deployment share through Redis (redis.url): the signature cache,
// the coalescing of identical requests, and the rate-limit budgets. The aggregator and the HTTP
// layer see it through their own interfaces (aggregator/shared-signatures.ts, util/rate-limit.ts
// Budget); the service wires it. Without redis.url none of this exists and everything stays in
// process. With it, Redis being down never fails a request: each part goes on with local state
// and the connection comes back by itself.
import { SharedConnection, type SharedStateHealth } from './connection.js';
import type { SharedStateEvents } from './events.js';
import { Leases, type Claim, type ClaimOptions } from './leases.js';
import { sharedBudgets } from './rate-limits.js';
import { SharedSignatureStore } from './signature-store.js';
import type { BudgetFactory } from '../util/rate-limit.js';

export type { SharedStateHealth } from './connection.js';
export type { SharedStateEvents } from './events.js';

interface SharedStateOptions {
  url: string;
  keyPrefix: string;
  commandTimeoutMs: number;
  connectTimeoutMs: number;
  leaseMs: number;
  /** signatureCache.ttlMs: how long a message's shared signatures live after their last write. */
  signatureTtlMs: number;
}

export class SharedState {
  readonly budgets: BudgetFactory;
  private readonly conn: SharedConnection;
  private readonly store: SharedSignatureStore;
  private readonly leases: Leases;

  private constructor(opts: SharedStateOptions, events: SharedStateEvents) {
    this.conn = new SharedConnection(opts, {
      onHealth: events.onHealth,
      onCommand: events.onCommand,
      onMessage: (channel, message) => this.leases.onMessage(channel, message),
    });
    this.store = new SharedSignatureStore(this.conn, opts.signatureTtlMs, events);
    this.leases = new Leases(this.conn, opts.leaseMs, events);
    this.budgets = sharedBudgets(this.conn, events);
  }

  /**
   * Connects (waiting at most connectTimeoutMs). A Redis that cannot be used (down, wrong
   * password) does not stop the start: `health` says why, and the connection keeps trying.
   */
  static async open(opts: SharedStateOptions, events: SharedStateEvents = {}): Promise<SharedState> {
    const state = new SharedState(opts, events);
    await state.conn.connect();
    return state;
  }

  get health(): SharedStateHealth {
    return this.conn.current;
  }

  /** Why shared state is unavailable (null when connected): what /ready and the status page say. */
  unavailableReason(): string | null {
    return this.conn.up ? null : `shared state unavailable: ${this.conn.describe()}; this replica uses its own cache and per-replica rate limits until Redis is back`;
  }

  read(messageIdHex: string): Promise<Map<string, Uint8Array>> {
    return this.store.read(messageIdHex);
  }

  write(messageIdHex: string, sigs: ReadonlyMap<string, Uint8Array>): Promise<void> {
    return this.store.write(messageIdHex, sigs);
  }

  remove(messageIdHex: string, pkHex: string): void {
    this.store.remove(messageIdHex, pkHex);
  }

  claim(requestKey: string, opts: ClaimOptions): Promise<Claim | null> {
    return this.leases.claim(requestKey, opts);
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}
