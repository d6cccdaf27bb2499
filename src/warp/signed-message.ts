// The signed Warp message (vms/platformvm/warp/message.go): the unsigned message bytes followed by
// the signature as a codec interface value. BitSetSignature (type ID 0) is the only signature
// type: `00000000 | u32 len + signers | signature[96]`. There is no second codec version.
import { ByteReader, ByteWriter } from './codec.js';
import { WarpFormatError } from './errors.js';
import { readUnsignedMessage, type UnsignedMessage } from './unsigned-message.js';

export const BIT_SET_SIGNATURE_TYPE_ID = 0;
export const BLS_SIGNATURE_LENGTH = 96;

export interface SignedMessage {
  unsigned: UnsignedMessage;
  /** The BitSetSignature signers bitset (see bitset.ts). */
  signers: Uint8Array;
  /** The 96-byte compressed aggregate BLS signature. */
  signature: Uint8Array;
  bytes: Uint8Array;
}

export type WarpMessage = { kind: 'signed'; message: SignedMessage } | { kind: 'unsigned'; message: UnsignedMessage };

const WHAT = 'Message';

function readSignature(r: ByteReader): { signers: Uint8Array; signature: Uint8Array } {
  const typeStart = r.offset;
  const typeId = r.u32('signature.typeID');
  if (typeId !== BIT_SET_SIGNATURE_TYPE_ID) {
    throw r.fail('signature.typeID', `is ${typeId}, but the only signature type is ${BIT_SET_SIGNATURE_TYPE_ID} (BitSetSignature)`, typeStart);
  }
  // The bitset can be no longer than the input itself; varBytes checks it against what remains.
  const signers = r.varBytes('signature.signers', r.remaining);
  const signature = r.fixed('signature.signature', BLS_SIGNATURE_LENGTH);
  return { signers, signature };
}

function readSigned(bytes: Uint8Array): WarpMessage {
  const r = new ByteReader(bytes, WHAT);
  const unsigned = readUnsignedMessage(r);
  if (r.remaining === 0) return { kind: 'unsigned', message: unsigned };
  const { signers, signature } = readSignature(r);
  r.end();
  return { kind: 'signed', message: { unsigned, signers, signature, bytes: r.copyFrom(0) } };
}

export function parseSignedMessage(bytes: Uint8Array): SignedMessage {
  const parsed = readSigned(bytes);
  if (parsed.kind !== 'signed') {
    throw new WarpFormatError(`${WHAT}.signature`, 'is missing: this is an unsigned message', bytes.length);
  }
  return parsed.message;
}

/** Decodes a message that may be signed or unsigned, telling which it was. */
export function parseWarpMessage(bytes: Uint8Array): WarpMessage {
  return readSigned(bytes);
}

export function encodeSignedMessage(unsigned: UnsignedMessage, signers: Uint8Array, signature: Uint8Array): Uint8Array {
  return new ByteWriter(WHAT, unsigned.bytes.length + 8 + signers.length + BLS_SIGNATURE_LENGTH)
    .raw(unsigned.bytes)
    .u32('signature.typeID', BIT_SET_SIGNATURE_TYPE_ID)
    .varBytes('signature.signers', signers, 0xffff_ffff)
    .fixed('signature.signature', signature, BLS_SIGNATURE_LENGTH)
    .bytes();
}
