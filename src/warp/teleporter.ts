// Teleporter (ICM) messages inside Warp AddressedCalls (protocol.md section 10).
// TeleporterMessenger._sendTeleporterMessage builds a TeleporterMessage, `abi.encode`s it and
// hands the bytes to the Warp precompile's sendWarpMessage, which wraps them in an AddressedCall
// whose sourceAddress is the calling contract (icm-contracts
// contracts/teleporter/TeleporterMessenger.sol; the struct is in ITeleporterMessenger.sol; the
// relayer's own binding, abi-bindings/go/teleporter/TeleporterMessenger/packing.go, packs it the
// same way: one dynamic tuple argument, so the encoding opens with the offset word 0x20).
//
// Any contract can emit an AddressedCall, so "is this Teleporter?" is answered from the bytes:
// they must be exactly what `abi.encode(message)` produces for the decoded fields. Re-encoding and
// comparing rejects trailing bytes, odd offsets, dirty address padding and anything else a lenient
// decoder would let through, so random or foreign payloads are not misread as Teleporter.
import * as AbiParameters from 'ox/AbiParameters';
import { MAX_PAYLOAD_BYTES } from './codec.js';
import { WarpFormatError } from './errors.js';
import { bytesTo0xHex, bytesToHex, hexToBytes } from './hex.js';
import { parsePayload, type WarpPayload } from './payload.js';

/** TeleporterMessenger v1.0.0, deployed with Nick's method at this address on every chain. */
export const TELEPORTER_MESSENGER_V1_ADDRESS = hexToBytes('0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf');

export interface TeleporterMessageReceipt {
  receivedMessageNonce: bigint;
  /** 20 bytes. */
  relayerRewardAddress: Uint8Array;
}

export interface TeleporterMessage {
  messageNonce: bigint;
  /** 20 bytes: the contract that called sendCrossChainMessage on the source chain. */
  originSenderAddress: Uint8Array;
  /** 32 bytes: the chain whose validators will verify the Warp message. */
  destinationBlockchainID: Uint8Array;
  /** 20 bytes. */
  destinationAddress: Uint8Array;
  requiredGasLimit: bigint;
  /** 20 bytes each; empty means any relayer may deliver. */
  allowedRelayerAddresses: Uint8Array[];
  receipts: TeleporterMessageReceipt[];
  message: Uint8Array;
}

// The struct TeleporterMessage of ITeleporterMessenger.sol, field for field.
const TELEPORTER_MESSAGE_ABI = [
  {
    type: 'tuple',
    name: 'message',
    components: [
      { type: 'uint256', name: 'messageNonce' },
      { type: 'address', name: 'originSenderAddress' },
      { type: 'bytes32', name: 'destinationBlockchainID' },
      { type: 'address', name: 'destinationAddress' },
      { type: 'uint256', name: 'requiredGasLimit' },
      { type: 'address[]', name: 'allowedRelayerAddresses' },
      {
        type: 'tuple[]',
        name: 'receipts',
        components: [
          { type: 'uint256', name: 'receivedMessageNonce' },
          { type: 'address', name: 'relayerRewardAddress' },
        ],
      },
      { type: 'bytes', name: 'message' },
    ],
  },
] as const;

const WORD = 32;
/** Offset word, the tuple's 8 head words, and the length words of its three dynamic fields. */
const MIN_ENCODED_BYTES = WORD * (1 + 8 + 3);
const ADDRESS_LENGTH = 20;
const ID_LENGTH = 32;

type Hex = `0x${string}`;

function toHex(bytes: Uint8Array): Hex {
  return bytesTo0xHex(bytes) as Hex;
}

/** Cheap shape checks that most non-Teleporter payloads (e.g. L1 messages) fail before any decoding. */
function looksLikeTeleporter(bytes: Uint8Array): boolean {
  if (bytes.length < MIN_ENCODED_BYTES || bytes.length % WORD !== 0 || bytes.length > MAX_PAYLOAD_BYTES) return false;
  for (let i = 0; i < WORD - 1; i++) if (bytes[i] !== 0) return false;
  return bytes[WORD - 1] === WORD;
}

/**
 * The TeleporterMessage that `payload` (an AddressedCall's payload) is the canonical ABI
 * encoding of, or null when it is not one. Never throws: an undecodable payload is simply not
 * Teleporter.
 */
export function decodeTeleporterMessage(payload: Uint8Array): TeleporterMessage | null {
  if (!looksLikeTeleporter(payload)) return null;
  let decoded;
  try {
    [decoded] = AbiParameters.decode(TELEPORTER_MESSAGE_ABI, payload, { checksumAddress: false });
  } catch {
    return null;
  }
  let canonical: Hex;
  try {
    canonical = AbiParameters.encode(TELEPORTER_MESSAGE_ABI, [decoded]);
  } catch {
    return null;
  }
  if (canonical.slice(2) !== bytesToHex(payload)) return null;
  return {
    messageNonce: decoded.messageNonce,
    originSenderAddress: hexToBytes(decoded.originSenderAddress),
    destinationBlockchainID: hexToBytes(decoded.destinationBlockchainID),
    destinationAddress: hexToBytes(decoded.destinationAddress),
    requiredGasLimit: decoded.requiredGasLimit,
    allowedRelayerAddresses: decoded.allowedRelayerAddresses.map((a) => hexToBytes(a)),
    receipts: decoded.receipts.map((r) => ({
      receivedMessageNonce: r.receivedMessageNonce,
      relayerRewardAddress: hexToBytes(r.relayerRewardAddress),
    })),
    message: hexToBytes(decoded.message),
  };
}

/** The Teleporter message carried by a parsed Warp payload, or null (a Hash payload, or not Teleporter). */
export function teleporterMessageOfPayload(payload: WarpPayload): TeleporterMessage | null {
  return payload.type === 'AddressedCall' ? decodeTeleporterMessage(payload.payload) : null;
}

/**
 * The chain a Teleporter message is for: its destinationBlockchainID, when the unsigned message's
 * payload is an AddressedCall carrying a TeleporterMessage; else null. Never throws.
 */
export function teleporterDestination(message: { payload: Uint8Array }): Uint8Array | null {
  let payload: WarpPayload;
  try {
    payload = parsePayload(message.payload);
  } catch (err) {
    if (err instanceof WarpFormatError) return null;
    throw err;
  }
  return teleporterMessageOfPayload(payload)?.destinationBlockchainID ?? null;
}

const MAX_UINT256 = (1n << 256n) - 1n;

function checkLength(what: string, bytes: Uint8Array, length: number): Hex {
  if (!(bytes instanceof Uint8Array) || bytes.length !== length) {
    throw new WarpFormatError(`TeleporterMessage.${what}`, `must be ${length} bytes, got ${bytes instanceof Uint8Array ? bytes.length : typeof bytes}`);
  }
  return toHex(bytes);
}

function checkUint256(what: string, value: bigint): bigint {
  if (typeof value !== 'bigint' || value < 0n || value > MAX_UINT256) {
    throw new WarpFormatError(`TeleporterMessage.${what}`, `must be a uint256 bigint, got ${String(value)}`);
  }
  return value;
}

/** `abi.encode(message)`, as TeleporterMessenger sends it. Throws WarpFormatError naming a field of the wrong size or range. */
export function encodeTeleporterMessage(m: TeleporterMessage): Uint8Array {
  if (!(m.message instanceof Uint8Array)) throw new WarpFormatError('TeleporterMessage.message', 'must be bytes');
  const value = {
    messageNonce: checkUint256('messageNonce', m.messageNonce),
    originSenderAddress: checkLength('originSenderAddress', m.originSenderAddress, ADDRESS_LENGTH),
    destinationBlockchainID: checkLength('destinationBlockchainID', m.destinationBlockchainID, ID_LENGTH),
    destinationAddress: checkLength('destinationAddress', m.destinationAddress, ADDRESS_LENGTH),
    requiredGasLimit: checkUint256('requiredGasLimit', m.requiredGasLimit),
    allowedRelayerAddresses: m.allowedRelayerAddresses.map((a, i) => checkLength(`allowedRelayerAddresses[${i}]`, a, ADDRESS_LENGTH)),
    receipts: m.receipts.map((r, i) => ({
      receivedMessageNonce: checkUint256(`receipts[${i}].receivedMessageNonce`, r.receivedMessageNonce),
      relayerRewardAddress: checkLength(`receipts[${i}].relayerRewardAddress`, r.relayerRewardAddress, ADDRESS_LENGTH),
    })),
    message: toHex(m.message),
  };
  return hexToBytes(AbiParameters.encode(TELEPORTER_MESSAGE_ABI, [value]));
}
