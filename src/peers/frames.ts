// The peer protocol's frames (docs/peer-protocol.md): the handshake and refusals are JSON text
// messages with a version and a type, byte fields as hex; the two frames of every request, sign
// and signature, are binary messages (an aggregation over 1,000 validators sends and reads
// thousands of them, and JSON with hex cost both sides more than the socket writes). Decoding is
// strict; anything a side cannot accept becomes a ProtocolError that carries the WebSocket close
// code and reason to end the connection with.
import { SIGNATURE_LENGTH, SIGNATURE_UNCOMPRESSED_LENGTH } from '../bls/constants.js';
import { cutPeerText } from '../util/peer-text.js';

const PROTOCOL_VERSION = 1;

/** 256 KiB: room for a full 24 KiB Warp payload and its justification, with plenty to spare. */
export const DEFAULT_MAX_FRAME_BYTES = 256 * 1024;

export const CloseCode = {
  normal: 1000,
  goingAway: 1001,
  tooBig: 1009,
  internalError: 1011,
  malformed: 4000,
  badVersion: 4001,
  unknownType: 4002,
  authFailed: 4003,
  handshakeTimeout: 4004,
  duplicate: 4005,
  penalized: 4006,
  unexpected: 4007,
  full: 4008,
  notAdmitted: 4009,
} as const;

const PUBLIC_KEY_BYTES = 48;
const SIGNATURE_BYTES = SIGNATURE_LENGTH;
/** The uncompressed form, sent when the service's welcome asks for it (uncompressedSignatures). */
const UNCOMPRESSED_SIGNATURE_BYTES = SIGNATURE_UNCOMPRESSED_LENGTH;
export const CHALLENGE_BYTES = 32;

type ChallengeFrame = { v: 1; type: 'challenge'; challenge: string };
type HelloFrame = { v: 1; type: 'hello'; publicKey: string; proof: string };
/**
 * `uncompressedSignatures`: the service takes signatures in the 192-byte uncompressed form, which
 * spares it the square roots of decompressing them (~20 µs each with blst, against ~1.5 µs: bench/bls-backends.ts). A
 * signer that does not know the field sends the compressed form, which every service takes.
 */
type WelcomeFrame = { v: 1; type: 'welcome'; uncompressedSignatures?: boolean };
export type SignFrame = { v: 1; type: 'sign'; id: number; message: Uint8Array; justification: Uint8Array };
/** `signature`: 96 bytes compressed, or 192 uncompressed (binary kinds 0x02 and 0x03). */
type SignatureFrame = { v: 1; type: 'signature'; id: number; signature: Uint8Array };
type RefusedFrame = { v: 1; type: 'refused'; id: number; reason: string };

/** Frames the service sends and the signer receives. */
export type ServiceFrame = ChallengeFrame | WelcomeFrame | SignFrame;
/** Frames the signer sends and the service receives. */
export type SignerFrame = HelloFrame | SignatureFrame | RefusedFrame;
type Frame = ServiceFrame | SignerFrame;

const SERVICE_TYPES = new Set(['challenge', 'welcome', 'sign']);
const SIGNER_TYPES = new Set(['hello', 'signature', 'refused']);

/** A frame or connection state that the receiving side cannot accept; ends the connection. */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  constructor(
    readonly code: number,
    readonly reason: string,
  ) {
    super(`peer protocol error ${code}: ${reason}`);
  }
}

const HEX_RE = /^(?:[0-9a-fA-F]{2})*$/;

function field(obj: Record<string, unknown>, name: string, type: 'string' | 'number'): unknown {
  const value = obj[name];
  if (typeof value !== type) {
    throw new ProtocolError(CloseCode.malformed, `field '${name}' must be a ${type}`);
  }
  return value;
}

function hexField(obj: Record<string, unknown>, name: string, bytes?: number): string {
  const value = field(obj, name, 'string') as string;
  if (!HEX_RE.test(value)) throw new ProtocolError(CloseCode.malformed, `field '${name}' must be hex without 0x`);
  if (bytes !== undefined && value.length !== bytes * 2) {
    throw new ProtocolError(CloseCode.malformed, `field '${name}' must be ${bytes} bytes, got ${value.length / 2}`);
  }
  return value;
}

function idField(obj: Record<string, unknown>): number {
  const id = field(obj, 'id', 'number') as number;
  if (!Number.isSafeInteger(id) || id < 0) {
    throw new ProtocolError(CloseCode.malformed, `field 'id' must be a non-negative safe integer`);
  }
  return id;
}

/**
 * Decodes one received WebSocket message. `from` is the role of the sender: a frame type that
 * only the other role sends is `unexpected`, a type nobody sends is `unknownType`.
 */
export function decodeFrame(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean, from: 'service', maxFrameBytes: number): ServiceFrame;
export function decodeFrame(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean, from: 'signer', maxFrameBytes: number): SignerFrame;
export function decodeFrame(
  data: Buffer | ArrayBuffer | Buffer[],
  isBinary: boolean,
  from: 'service' | 'signer',
  maxFrameBytes: number,
): Frame {
  const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
  // ws enforces maxPayload already; this guards callers that configure ws differently.
  if (buf.length > maxFrameBytes) {
    throw new ProtocolError(CloseCode.tooBig, `frame of ${buf.length} bytes exceeds the limit of ${maxFrameBytes}`);
  }
  if (isBinary) return decodeBinaryFrame(buf, from);
  let parsed: unknown;
  try {
    parsed = JSON.parse(buf.toString('utf8'));
  } catch {
    throw new ProtocolError(CloseCode.malformed, 'frame is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ProtocolError(CloseCode.malformed, 'frame is not a JSON object');
  }
  const obj = parsed as Record<string, unknown>;
  if (obj.v !== PROTOCOL_VERSION) {
    throw new ProtocolError(CloseCode.badVersion, `unsupported protocol version ${cutPeerText(JSON.stringify(obj.v) ?? 'missing', 40)}, this side speaks ${PROTOCOL_VERSION}`);
  }
  const type = obj.type;
  if (typeof type !== 'string') throw new ProtocolError(CloseCode.malformed, `field 'type' must be a string`);
  const mine = from === 'service' ? SERVICE_TYPES : SIGNER_TYPES;
  const theirs = from === 'service' ? SIGNER_TYPES : SERVICE_TYPES;
  if (!mine.has(type)) {
    if (theirs.has(type)) throw new ProtocolError(CloseCode.unexpected, `a ${from === 'service' ? 'signer' : 'service'} does not receive '${type}' frames`);
    throw new ProtocolError(CloseCode.unknownType, `unknown frame type '${type.slice(0, 40)}'`);
  }
  switch (type) {
    case 'challenge':
      return { v: 1, type, challenge: hexField(obj, 'challenge', CHALLENGE_BYTES) };
    case 'welcome': {
      const uncompressed = obj.uncompressedSignatures;
      if (uncompressed === undefined) return { v: 1, type };
      if (typeof uncompressed !== 'boolean') throw new ProtocolError(CloseCode.malformed, `field 'uncompressedSignatures' must be a boolean`);
      return { v: 1, type, uncompressedSignatures: uncompressed };
    }
    case 'sign':
    case 'signature':
      throw new ProtocolError(CloseCode.malformed, `'${type}' frames are binary messages, not JSON`);
    case 'hello':
      return { v: 1, type, publicKey: hexField(obj, 'publicKey', PUBLIC_KEY_BYTES), proof: hexField(obj, 'proof', SIGNATURE_BYTES) };
    default:
      return { v: 1, type: 'refused', id: idField(obj), reason: field(obj, 'reason', 'string') as string };
  }
}

/** A JSON frame (every type but sign and signature, which encodeSign and encodeSignature write). */
export function encodeFrame(frame: Exclude<Frame, SignFrame | SignatureFrame>): string {
  return JSON.stringify(frame);
}

// ---- binary frames ------------------------------------------------------------------------
// version (1 byte) ‖ kind (1 byte) ‖ id (8 bytes, big-endian, at most 2^53 − 1) ‖ body
//   sign:      message length (4 bytes, big-endian) ‖ message ‖ justification (the rest)
//   signature:              the 96-byte compressed signature
//   uncompressed signature: the 192-byte uncompressed signature (only to a service that asked)

const BinaryKind = { sign: 0x01, signature: 0x02, uncompressedSignature: 0x03 } as const;
const HEADER_BYTES = 10;
const SIGN_BODY_OFFSET = HEADER_BYTES + 4;
const TWO_32 = 2 ** 32;
/** The high word of a safe integer id is below 2^21. */
const MAX_ID_HIGH = 2 ** 21;

function writeHeader(out: Buffer, kind: number, id: number): void {
  out[0] = PROTOCOL_VERSION;
  out[1] = kind;
  out.writeUInt32BE(Math.floor(id / TWO_32), 2);
  out.writeUInt32BE(id % TWO_32, 6);
}

export function encodeSign(id: number, message: Uint8Array, justification: Uint8Array): Buffer {
  return encodeSignWithBody(id, encodeSignBody(message, justification));
}

/** Bytes of a sign frame's header: version, kind and id. */
export const SIGN_HEADER_BYTES = HEADER_BYTES;

/**
 * What follows a sign frame's header: message length ‖ message ‖ justification. It is the same
 * for every validator asked about one message, so it is encoded once and shared.
 */
export function encodeSignBody(message: Uint8Array, justification: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(4 + message.length + justification.length);
  out.writeUInt32BE(message.length, 0);
  out.set(message, 4);
  out.set(justification, 4 + message.length);
  return out;
}

/** A sign frame's header alone, for a body sent as a separate fragment of the same message. */
export function encodeSignHeader(id: number): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES);
  writeHeader(out, BinaryKind.sign, id);
  return out;
}

/** A whole sign frame: the header for `id` and a copy of a shared body. */
export function encodeSignWithBody(id: number, body: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + body.length);
  writeHeader(out, BinaryKind.sign, id);
  out.set(body, HEADER_BYTES);
  return out;
}

/** A signature frame of the kind the signature's length names: 96 bytes compressed, 192 uncompressed. */
export function encodeSignature(id: number, signature: Uint8Array): Buffer {
  const kind =
    signature.length === SIGNATURE_BYTES ? BinaryKind.signature : signature.length === UNCOMPRESSED_SIGNATURE_BYTES ? BinaryKind.uncompressedSignature : undefined;
  if (kind === undefined) throw new RangeError(`a signature is ${SIGNATURE_BYTES} or ${UNCOMPRESSED_SIGNATURE_BYTES} bytes, got ${signature.length}`);
  const out = Buffer.allocUnsafe(HEADER_BYTES + signature.length);
  writeHeader(out, kind, id);
  out.set(signature, HEADER_BYTES);
  return out;
}

/** Bytes of a received frame, copied: ws may hand out a view into a larger socket buffer. */
function copy(buf: Buffer, start: number, end: number): Uint8Array {
  return new Uint8Array(buf.subarray(start, end));
}

function decodeBinaryFrame(buf: Buffer, from: 'service' | 'signer'): Frame {
  if (buf.length < HEADER_BYTES) {
    throw new ProtocolError(CloseCode.malformed, `binary frame of ${buf.length} bytes is shorter than its ${HEADER_BYTES}-byte header`);
  }
  if (buf[0] !== PROTOCOL_VERSION) {
    throw new ProtocolError(CloseCode.badVersion, `unsupported protocol version ${buf[0]}, this side speaks ${PROTOCOL_VERSION}`);
  }
  const kind = buf[1];
  const high = buf.readUInt32BE(2);
  if (high >= MAX_ID_HIGH) throw new ProtocolError(CloseCode.malformed, `field 'id' must be a non-negative safe integer`);
  const id = high * TWO_32 + buf.readUInt32BE(6);
  if (kind === BinaryKind.sign) {
    if (from !== 'service') throw new ProtocolError(CloseCode.unexpected, `a service does not receive 'sign' frames`);
    if (buf.length < SIGN_BODY_OFFSET) throw new ProtocolError(CloseCode.malformed, `sign frame of ${buf.length} bytes has no message length`);
    const messageEnd = SIGN_BODY_OFFSET + buf.readUInt32BE(HEADER_BYTES);
    if (messageEnd > buf.length) throw new ProtocolError(CloseCode.malformed, `sign frame's message length runs past its end`);
    return { v: 1, type: 'sign', id, message: copy(buf, SIGN_BODY_OFFSET, messageEnd), justification: copy(buf, messageEnd, buf.length) };
  }
  if (kind === BinaryKind.signature || kind === BinaryKind.uncompressedSignature) {
    if (from !== 'signer') throw new ProtocolError(CloseCode.unexpected, `a signer does not receive 'signature' frames`);
    const bytes = kind === BinaryKind.signature ? SIGNATURE_BYTES : UNCOMPRESSED_SIGNATURE_BYTES;
    if (buf.length !== HEADER_BYTES + bytes) {
      const form = kind === BinaryKind.signature ? 'signature' : 'uncompressed signature';
      throw new ProtocolError(CloseCode.malformed, `field 'signature' of an ${form} frame must be ${bytes} bytes, got ${buf.length - HEADER_BYTES}`);
    }
    return { v: 1, type: 'signature', id, signature: copy(buf, HEADER_BYTES, buf.length) };
  }
  throw new ProtocolError(CloseCode.unknownType, `unknown binary frame kind ${kind}`);
}

/** WebSocket close reasons are limited to 123 bytes of UTF-8. */
export function closeReason(text: string): string {
  let out = text.slice(0, 123);
  while (Buffer.byteLength(out) > 123) out = out.slice(0, -1);
  return out;
}
