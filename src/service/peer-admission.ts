// Feeds peer admission (src/peers/admission.ts) the validator sets the service reads: every set an
// aggregation or /ready reads passes through trackValidatorSets, and the current sets of
// readiness.subnets are read at start and every setRefreshMs, so the signers of the subnets the
// service serves are admitted from the start and a validator that joins is admitted soon after.
import type { Logger } from 'pino';
import type { ValidatorSets } from '../aggregator/aggregator.js';
import type { PeerAdmission } from '../peers/admission.js';

/** `sets`, recording each set it hands out with `admission`. */
export function trackValidatorSets(sets: ValidatorSets, admission: PeerAdmission): ValidatorSets {
  return {
    get: (...args: Parameters<ValidatorSets['get']>) =>
      sets.get(...args).then((set) => {
        admission.observe(args[0], args[1], set);
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

/** Reads the subnets' current sets now and every intervalMs; the returned function stops it. */
export function keepSubnetSetsCurrent(opts: RefreshOptions): () => void {
  if (opts.subnets.length === 0) return () => {};
  let stopped = false;
  let running = false;
  const refresh = async (): Promise<void> => {
    // A slow node must not pile refreshes up.
    if (running || stopped) return;
    running = true;
    try {
      for (const { name, id } of opts.subnets) {
        if (stopped) return;
        await opts.sets.get(id, 0).catch((err: unknown) => {
          opts.logger.warn({ subnet: name, err: err instanceof Error ? err.message : String(err) }, 'could not read a validator set for peer admission; will retry');
        });
      }
    } finally {
      running = false;
    }
  };
  void refresh();
  const timer = setInterval(() => void refresh(), opts.intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
