// The gas limit of a delivery: what the destination charges before execution (intrinsic gas:
// the transaction, its calldata, and the Warp predicate's verification), plus what
// TeleporterMessenger.receiveCrossChainMessage spends (reading the verified message, its own
// bookkeeping, the receipts it carries) and the gas it must hand the receiver (requiredGasLimit).
// Compare icm-services vms/evm/gas_utils.go CalculateReceiveMessageGasLimit; the differences are
// said where they are. An overestimate only raises the balance a key must hold (unused gas is
// refunded); an underestimate fails the delivery, so every term errs high.
import type { Hex } from '../ports.js';
import { hexToBytes } from '../../warp/index.js';
import { predicateChunks } from './predicate.js';

/** The Warp precompile's prices (graft/{coreth,subnet-evm}/precompile/contracts/warp/contract.go). */
export interface WarpGasSchedule {
  /** Charged once per predicate as intrinsic gas: the aggregate BLS verification. */
  readonly verifyPredicateBase: bigint;
  /** Per signer in the bitset, intrinsic. */
  readonly perSigner: bigint;
  /** Per 32-byte key of the predicate: once intrinsic, again on every getVerifiedWarpMessage. */
  readonly perChunk: bigint;
  /** Entering getVerifiedWarpMessage. */
  readonly getVerifiedWarpMessageBase: bigint;
}

/** Since Granite (ACP-181), on the C-Chain and subnet-evm alike. */
export const GRANITE_WARP_GAS: WarpGasSchedule = { verifyPredicateBase: 125_000n, perSigner: 250n, perChunk: 512n, getVerifiedWarpMessageBase: 750n };
/** Before Granite. */
export const PRE_GRANITE_WARP_GAS: WarpGasSchedule = { verifyPredicateBase: 200_000n, perSigner: 500n, perChunk: 3_200n, getVerifiedWarpMessageBase: 2n };

const TX_BASE = 21_000n;
const CALLDATA_ZERO_BYTE = 4n;
const CALLDATA_NONZERO_BYTE = 16n;

/**
 * TeleporterMessenger's own work in receiveCrossChainMessage, message aside: about six fresh
 * storage slots (received flag, nonce, reward address, the receipt queue's entry and tail:
 * 22,100 each under EIP-2929), a dozen cold reads, the blockchain ID's lazy initialisation and
 * the event's topics; icm-services uses the same 250,000.
 */
const TELEPORTER_RECEIVE_BASE = 250_000n;
/**
 * Per byte of the Warp message: ABI-decoding it from the precompile's return data, copying it
 * into the receiver's calldata and logging it in ReceiveCrossChainMessage (8 gas a byte of log
 * data, memory expansion); icm-services charges 35.
 */
const TELEPORTER_PER_MESSAGE_BYTE = 35n;
/**
 * Per receipt the message carries: _markReceipt reads and clears the sent message's three slots
 * (2,100 cold + 2,900 each) and credits the relayer's reward (up to 22,100 for a fresh slot),
 * with its event: 40,000 bounds that. icm-services charges 2,500, which a receipt for a message
 * with a fee does not fit in.
 */
const TELEPORTER_PER_RECEIPT = 40_000n;
/** The receiver call's own cost before the forwarded gas: a cold account (2,600) and CALL. */
const RECEIVER_CALL = 10_000n;

function calldataGas(data: Uint8Array): bigint {
  let gas = 0n;
  for (const byte of data) gas += byte === 0 ? CALLDATA_ZERO_BYTE : CALLDATA_NONZERO_BYTE;
  return gas;
}

interface DeliveryGasInput {
  readonly schedule: WarpGasSchedule;
  /** The aggregate signature's signer count (its bitset's population). */
  readonly signers: number;
  readonly requiredGasLimit: bigint;
  /** The signed Warp message, as it goes into the predicate. */
  readonly signedMessageBytes: number;
  /** The unsigned Warp message (the Teleporter message inside it is decoded and copied). */
  readonly unsignedMessageBytes: number;
  readonly receiptCount: number;
  /** The transaction's calldata. */
  readonly calldata: Hex;
}

/** The parts of a delivery's gas, for the limit and for the docs' and tests' arithmetic. */
interface DeliveryGas {
  readonly intrinsic: bigint;
  readonly warpExecution: bigint;
  readonly teleporter: bigint;
  readonly total: bigint;
}

export function deliveryGas(input: DeliveryGasInput): DeliveryGas {
  const { schedule } = input;
  const chunks = BigInt(predicateChunks(input.signedMessageBytes));
  // Intrinsic: subnet-evm's and coreth's IntrinsicGas charge a predicate's PredicateGas in place
  // of the access list's 2,400 + 1,900 per key.
  const intrinsic =
    TX_BASE + calldataGas(hexToBytes(input.calldata)) + schedule.verifyPredicateBase + BigInt(input.signers) * schedule.perSigner + chunks * schedule.perChunk;
  const warpExecution = schedule.getVerifiedWarpMessageBase + chunks * schedule.perChunk;
  // EIP-150: a CALL forwards at most 63/64 of what is left, so requiredGasLimit reaches the
  // receiver only when 64/63 of it is there.
  const forwarded = input.requiredGasLimit + (input.requiredGasLimit + 62n) / 63n + RECEIVER_CALL;
  const teleporter =
    TELEPORTER_RECEIVE_BASE + BigInt(input.unsignedMessageBytes) * TELEPORTER_PER_MESSAGE_BYTE + BigInt(input.receiptCount) * TELEPORTER_PER_RECEIPT + forwarded;
  return { intrinsic, warpExecution, teleporter, total: intrinsic + warpExecution + teleporter };
}

/** The schedule in force at `nowSeconds` by the chain config's `graniteTimestamp` (coreth and subnet-evm both carry it). */
export function warpGasScheduleOf(chainConfig: unknown, nowSeconds: number): WarpGasSchedule {
  const granite = typeof chainConfig === 'object' && chainConfig !== null ? (chainConfig as { graniteTimestamp?: unknown }).graniteTimestamp : undefined;
  // A config without the field predates Granite's code; one with it says when.
  return typeof granite === 'number' && granite <= nowSeconds ? GRANITE_WARP_GAS : PRE_GRANITE_WARP_GAS;
}
