// The bench's `floor` strategy: the same service, transport, fan-out, HTTP request and response,
// early stop and ledger bookkeeping as warpgate, but no signature check and no aggregation. Each
// answer is accepted as it arrives, with no BLS pool work, and the collection answers as soon as
// the answers' weight reaches the target: what the path costs before any cryptography. Its signed
// messages are NOT valid (see finalCheck): the harness skips them in its after-run verification.
// It lives only in the bench, handed to the service like perSignatureVerify
// (ServiceOptions.verification); the service itself has no way to skip a check.
import type { Arrival } from '../src/aggregator/signature-ledger.js';
import { SIGNATURE_LENGTH } from '../src/bls/constants.js';
import { COMPRESSION_FLAG, isUncompressedForm } from '../src/bls/forms.js';
import type { AggregateCheck, VerificationStrategy } from '../src/aggregator/verification.js';
import { AcceptedIsReady } from './accepted-is-ready.js';

/** The ledger's check callback wants a promise; acceptance is synchronous, so one settled promise serves every batch. */
const DONE: Promise<void> = Promise.resolve();

class FloorVerification extends AcceptedIsReady {
  /**
   * Every waiting answer is accepted at once, inside the ledger's own startChecks (one "check"
   * slot, so the ledger's batching, counts and checkDone event run as for warpgate's folds).
   * Marking them proven keeps the collection's books as warpgate's: the 'valid' response count
   * and the signature cache's traffic (each bench message is asked once, so nothing is served
   * from that cache).
   */
  startChecks(): void {
    this.ctx.ledger.startChecks((batch) => this.accept(batch), 1);
  }

  /**
   * No pairing and no aggregate: the message carries every accepted signer and, as its
   * "aggregate", the first signer's own signature bytes (a well-formed compressed G2 point, so
   * the response is encoded exactly as a real one, but it does not verify for these signers).
   * An uncompressed one gives its x with the compression flag set: the compressed form of that
   * point or of its negation, with no arithmetic.
   */
  async finalCheck(): Promise<AggregateCheck> {
    const { ledger } = this.ctx;
    const signers = ledger.acceptedSigners();
    const first = ledger.batchOf(signers.slice(0, 1)).sigs[0]!;
    const signature = isUncompressedForm(first) ? compressedLooking(first) : first;
    return { valid: true, signers, signature, weight: ledger.acceptedWeight, checked: signers, leftOut: 0 };
  }

  private accept(batch: Arrival[]): Promise<void> {
    const { ledger } = this.ctx;
    for (const a of batch) {
      ledger.accept(a);
      ledger.prove(a.index);
    }
    return DONE;
  }
}

export const floor: VerificationStrategy = (ctx) => new FloorVerification(ctx);

/** An uncompressed G2 point's x as a compressed encoding (flag set; the sort flag left clear). */
function compressedLooking(uncompressed: Uint8Array): Uint8Array {
  const out = uncompressed.slice(0, SIGNATURE_LENGTH);
  out[0] = out[0]! | COMPRESSION_FLAG;
  return out;
}
