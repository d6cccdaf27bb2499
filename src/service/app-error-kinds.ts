// What an AppError from an avalanchego validator means depends on the VM that answered it: the
// negative codes are the p2p SDK's and mean the same everywhere (network/p2p/error.go), the
// positive ones are the chain's verifier's. warpgate knows which chain it asked (the AppRequest's
// chain ID, the message's source chain): 32 zero bytes is the P-Chain, any other an EVM chain.
//
// EVM verifiers number their codes differently: subnet-evm and pre-Helicon coreth
// (graft/*/warp/verifier_backend.go) 1 = parse, 2 = verify; the SAE C-Chain after Helicon
// (vms/saevm/cchain/warp/verifier.go) 1 = storage, 2 = parse, 3 = unknown message, 4 = block not
// accepted. Codes 3 and 4 may be transient: a message whose block is not yet accepted (or not yet
// executed) gets them until it is. They are asked again (signer-routing.ts); P-Chain codes are
// final (vms/platformvm/network/warp.go answers from state already decided).
import { appErrorName } from '../p2p/index.js';

type Vm = 'pchain' | 'evm';

export function vmOfChain(chainId: Uint8Array): Vm {
  return chainId.every((b) => b === 0) ? 'pchain' : 'evm';
}

/** The highest code each VM's verifier defines: the P-Chain's ErrWrongWeight (17), the SAE C-Chain's block not accepted (4). */
const MAX_VM_CODE: Record<Vm, number> = { pchain: 17, evm: 4 };

/**
 * The metrics label and log name of an AppError code from this VM, from a fixed set: `pchain-16`,
 * `evm-4`, the p2p SDK's names, or `other` for a code no avalanchego VM sends (a validator chooses
 * the code: a label per code would let one grow the metrics and the log limiter's keys).
 */
export function appErrorLabel(vm: Vm, code: number): string {
  if (code > 0) return Number.isInteger(code) && code <= MAX_VM_CODE[vm] ? `${vm}-${code}` : 'other';
  return appErrorName(code);
}

/** EVM 3 (unknown message) and 4 (block not accepted): the block may just not be accepted or executed yet. */
export function mayBeNotYet(vm: Vm, code: number): boolean {
  return vm === 'evm' && (code === 3 || code === 4);
}

/** The first retry after a not-yet refusal waits this long, doubling each time up to NOT_YET_MAX_BACKOFF_MS. */
const NOT_YET_FIRST_BACKOFF_MS = 100;
const NOT_YET_MAX_BACKOFF_MS = 1_000;
/** A retry is only sent with at least this long left before the request's deadline. */
export const NOT_YET_MIN_ATTEMPT_MS = 100;

export function notYetBackoff(retries: number): number {
  return Math.min(NOT_YET_MAX_BACKOFF_MS, NOT_YET_FIRST_BACKOFF_MS * 2 ** retries);
}
