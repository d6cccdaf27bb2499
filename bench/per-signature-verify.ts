// The bench's baseline verification, icm-services' way: every answer is verified on its own as it
// arrives (one pairing per signature, in the BLS worker pool like warpgate's checks), and the
// verified signatures are summed at the end, all of them (icm-services does not minimize signers). The service runs it when the bench injects it
// (ServiceOptions.verification); warpgate itself checks running sums (src/aggregator/verification.ts).
import type { Arrival } from '../src/aggregator/signature-ledger.js';
import type { AggregateCheck, VerificationStrategy } from '../src/aggregator/verification.js';
import { AcceptedIsReady } from './accepted-is-ready.js';

class PerSignatureVerification extends AcceptedIsReady {
  /** Every answer is checked, as icm-services does. */
  startChecks(): void {
    this.ctx.ledger.startChecks((batch) => this.verify(batch), this.ctx.pool.suggestedParallelism());
  }

  async finalCheck(): Promise<AggregateCheck> {
    const { ledger, pool } = this.ctx;
    const signers = ledger.acceptedSigners();
    const weight = ledger.acceptedWeight;
    const signature = await pool.aggregate(ledger.batchOf(signers).sigs);
    return { valid: true, signers, signature, weight, checked: signers, leftOut: 0 };
  }

  private async verify(batch: Arrival[]): Promise<void> {
    const { ledger, pool, message } = this.ctx;
    const ok = await pool.verifyEach({ message, ...ledger.batchOf(batch) });
    if (ledger.isClosed) return;
    batch.forEach((a, i) => {
      if (!ok[i]) {
        ledger.reject(a, 'the signature does not verify');
        return;
      }
      ledger.accept(a);
      ledger.prove(a.index);
    });
  }
}

export const perSignatureVerify: VerificationStrategy = (ctx) => new PerSignatureVerification(ctx);
