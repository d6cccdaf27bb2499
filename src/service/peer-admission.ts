// Feeds what depends on the validator sets the service reads: peer admission
// (src/peers/admission.ts) and the validator directory the p2p transport connects by
// (validator-directory.ts). Every set an aggregation or /ready reads passes through
// trackValidatorSets, and the current sets of readiness.subnets are read at start and every
// setRefreshMs, so the signers of the subnets the service serves are admitted, and their
// avalanchego validators connected, from the start, and a validator that joins soon after.
import type { Logger } from 'pino';
import type { ValidatorSets } from '../aggregator/aggregator.js';
import type { CanonicalSet } from '../validators/canonical-set.js';

/** What is told of every set read. */
interface SetObserver {
  observe(subnetId: Uint8Array, pChainHeight: number, set: CanonicalSet): void;
}

/** `sets`, telling each observer of each set it hands out. */
export function trackValidatorSets(sets: ValidatorSets, observers: readonly SetObserver[]): ValidatorSets {
  return {
    get: (...args: Parameters<ValidatorSets['get']>) =>
      sets.get(...args).then((set) => {
        for (const o of observers) o.observe(args[0], args[1], set);
        return set;
      }),
    signingSubnetFor: (...args: Parameters<ValidatorSets['signingSubnetFor']>) => sets.signingSubnetFor(...args),
    proposedHeight: (...args: Parameters<ValidatorSets['proposedHeight']>) => sets.proposedHeight(...args),
  };
}

interface RefreshOptions {
  /** The tracking sets, so what is read is observed. */
  sets: ValidatorSets;
  subnets: { name: string; id: Uint8Array }[];
  intervalMs: number;
  logger: Logger;
}

/** The first retry after a failed read; it doubles up to intervalMs. */
const FIRST_RETRY_MS = 1_000;

/**
 * Reads the subnets' current sets now and every intervalMs; the returned function stops it. A
 * round in which a read failed (the node down) is retried sooner, after 1 s doubling up to
 * intervalMs, so a node that comes back is read within seconds, not a whole interval later.
 */
export function keepSubnetSetsCurrent(opts: RefreshOptions): () => void {
  if (opts.subnets.length === 0) return () => {};
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let retryMs = FIRST_RETRY_MS;
  const refresh = async (): Promise<void> => {
    let failed = false;
    for (const { name, id } of opts.subnets) {
      if (stopped) return;
      await opts.sets.get(id, 0).catch((err: unknown) => {
        failed = true;
        opts.logger.warn({ subnet: name, err: err instanceof Error ? err.message : String(err) }, 'could not read a validator set of readiness.subnets; will retry');
      });
    }
    if (stopped) return;
    // One round at a time: a slow node does not pile reads up.
    const next = failed ? Math.min(retryMs, opts.intervalMs) : opts.intervalMs;
    retryMs = failed ? Math.min(retryMs * 2, opts.intervalMs) : FIRST_RETRY_MS;
    timer = setTimeout(() => void refresh(), next);
    timer.unref();
  };
  void refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
