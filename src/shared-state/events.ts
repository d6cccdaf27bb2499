// What the shared state reports, for the metrics and the status page (service/ wires them).
import type { SharedStateHealth } from './connection.js';

export interface SharedStateEvents {
  onHealth?(health: SharedStateHealth): void;
  onCommand?(name: string): void;
  /** An operation done with local state because Redis could not be used. */
  onFallback?(operation: 'signatures' | 'coalescing' | 'rate_limit'): void;
  /** A read of the shared signature cache: signatures found (hit), none (miss), or malformed entries dropped (invalid). */
  onSharedCache?(result: 'hit' | 'miss' | 'invalid', count?: number): void;
  /**
   * An aggregation and the cross-replica coalescing: this replica collected under the lease
   * (holder), answered from another replica's collection (waiter), or took over a lease that
   * expired under a holder that died or stalled (takeover).
   */
  onCoalesced?(role: 'holder' | 'waiter' | 'takeover'): void;
}
