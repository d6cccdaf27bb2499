// What clients submit as "the message": either the raw unsigned message, or the data of the warp
// precompile's `SendWarpMessage(address indexed sender, bytes32 indexed messageID, bytes message)`
// log, which is the unsigned message ABI-encoded as `bytes`:
//   offset word (= 0x20) | length word | data | zero padding to a multiple of 32
// icm-services accepts both, so we do too.
import { plainBytes } from './codec.js';
import { WarpFormatError } from './errors.js';
import { hexToBytes } from './hex.js';
import { parseUnsignedMessage, type UnsignedMessage } from './unsigned-message.js';

const WORD = 32;
const WHAT = 'SendWarpMessage log data';

function wordIsSmallInt(bytes: Uint8Array, at: number, value: number): boolean {
  for (let i = at; i < at + WORD - 4; i++) if (bytes[i] !== 0) return false;
  const low = ((bytes[at + 28]! << 24) | (bytes[at + 29]! << 16) | (bytes[at + 30]! << 8) | bytes[at + 31]!) >>> 0;
  return low === value;
}

/**
 * The `bytes` value inside ABI-encoded SendWarpMessage log data. Returns null when the input does
 * not start with the ABI offset word 0x20 (so it is not log data; no unsigned message does, since
 * it would need network ID 0). Input that does start with it must be well-formed: a length that
 * fits, zero padding to the next 32-byte boundary, nothing after it; otherwise a WarpFormatError.
 */
export function unwrapSendWarpMessageLogData(input: Uint8Array): Uint8Array | null {
  const bytes = plainBytes(input);
  if (bytes.length < WORD || !wordIsSmallInt(bytes, 0, WORD)) return null;
  if (bytes.length < 2 * WORD) {
    throw new WarpFormatError(`${WHAT}.length`, `needs a 32-byte length word but only ${bytes.length - WORD} bytes follow the offset`, WORD);
  }
  for (let i = WORD; i < 2 * WORD - 4; i++) {
    if (bytes[i] !== 0) throw new WarpFormatError(`${WHAT}.length`, 'is larger than the input', WORD);
  }
  const len = ((bytes[60]! << 24) | (bytes[61]! << 16) | (bytes[62]! << 8) | bytes[63]!) >>> 0;
  const available = bytes.length - 2 * WORD;
  if (len > available) {
    throw new WarpFormatError(`${WHAT}.length`, `is ${len} but only ${available} bytes follow`, WORD);
  }
  const padded = Math.ceil(len / WORD) * WORD;
  if (available !== padded) {
    throw new WarpFormatError(WHAT, `must be padded to ${padded} data bytes, got ${available}`, 2 * WORD + len);
  }
  for (let i = 2 * WORD + len; i < bytes.length; i++) {
    if (bytes[i] !== 0) throw new WarpFormatError(`${WHAT}.padding`, 'must be zero bytes', i);
  }
  return bytes.slice(2 * WORD, 2 * WORD + len);
}

/** Hex of an unsigned message, raw or as SendWarpMessage log data (`0x` optional). */
export function parseMessageInput(hex: string, what = 'message'): UnsignedMessage {
  const bytes = hexToBytes(hex, what);
  if (bytes.length === 0) throw new WarpFormatError(what, 'is empty');
  return parseUnsignedMessage(unwrapSendWarpMessageLogData(bytes) ?? bytes);
}
