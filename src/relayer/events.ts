// What the engine reports as it works, for the surface to turn into metrics (service/ owns the
// prom-client registry; the relayer imports none). Every callback is optional and synchronous;
// one that throws is logged and ignored, so a metrics bug never stops a delivery.

/** How a message left the engine's hands (or, for parked, was set aside for a while). */
export type MessageOutcome = 'delivered' | 'delivered-by-other' | 'skipped' | 'parked';

export interface RelayerEvents {
  /** A message reached an outcome; `reason` for skipped and parked ones. */
  outcome?(route: string, outcome: MessageOutcome, reason?: string): void;
  /** Seconds from the engine first seeing the source log to the delivery's receipt. */
  deliveryLatency?(route: string, seconds: number): void;
  /** Seconds one aggregation took, and how many validators signed. */
  aggregation?(route: string, seconds: number, signers: number): void;
  /** Gas the delivery transaction used. */
  gasUsed?(route: string, gas: bigint): void;
  /** The route's checkpoint moved; `lag` is the source head minus the checkpoint (0 when unknown). */
  checkpoint?(route: string, height: number, lag: number): void;
  /** An attempt failed and the message will be tried again (in a moment, or later from the store). */
  retry?(route: string, reason: string): void;
  /** The route's number of parked messages changed. */
  parked?(route: string, count: number): void;
}

/** Calls one event, never letting it throw into the engine. */
export function emit<K extends keyof RelayerEvents>(
  events: RelayerEvents,
  name: K,
  args: Parameters<NonNullable<RelayerEvents[K]>>,
  onError: (err: unknown) => void,
): void {
  const fn = events[name] as ((...a: unknown[]) => void) | undefined;
  if (!fn) return;
  try {
    fn.apply(events, args);
  } catch (err) {
    onError(err);
  }
}
