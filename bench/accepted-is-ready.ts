// What the two bench baselines share (per-signature-verify.ts, floor.ts): each signature is
// settled on its own as it arrives (verified alone, or accepted unchecked), so what is ready for
// the final check is exactly what the ledger accepted, and nothing ready is unproven.
import type { AggregateCheck, Verification, VerificationContext } from '../src/aggregator/verification.js';

export abstract class AcceptedIsReady implements Verification {
  readonly unproven = false;

  constructor(protected readonly ctx: VerificationContext) {}

  get readyWeight(): bigint {
    return this.ctx.ledger.acceptedWeight;
  }

  get readySigners(): number {
    return this.ctx.ledger.acceptedSigners().length;
  }

  abstract startChecks(): void;
  abstract finalCheck(): Promise<AggregateCheck>;
}
