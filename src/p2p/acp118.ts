// ACP-118 over AppRequest. app_bytes = uvarint handler ID ‖ handler bytes
// (network/p2p/router.go ParseMessage / PrefixMessage); the signature handler is ID 2
// (network/p2p/handler.go) and takes sdk.SignatureRequest, answering sdk.SignatureResponse
// (network/p2p/acp118/handler.go).
//
// Request IDs are odd. Coreth and subnet-evm route an AppRequest with an even request ID to
// their legacy handlers, which parse it with their own codec and drop what they cannot parse
// without any answer; only odd IDs reach the p2p SDK router where ACP-118 lives
// (graft/subnet-evm/network/network.go and graft/coreth/network/network.go: AppRequest checks
// IsNetworkRequest, `requestID%2 == 0`, and forwards the rest to n.sdkNetwork).
//
// AppError codes (network/p2p/error.go): -1 unexpected (also: unparseable SignatureRequest or
// Warp message, a message from another chain or network, acp118/handler.go), -2 unregistered
// handler, -3 not a validator, -4 throttled. Positive codes are the VM's verifier's, and they
// overlap: EVM (graft/subnet-evm/warp/verifier_backend.go, graft/coreth/warp/verifier_backend.go)
// 1 = parse, 2 = verify; SAE's C-Chain (vms/saevm/cchain/warp/verifier.go) 1 = storage,
// 2 = parse, 3 = unknown message, 4 = not accepted; the P-Chain's (vms/platformvm/network/warp.go)
// 1..17, from "failed to parse addressed call" to "wrong weight".
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { SignatureRequestSchema, SignatureResponseSchema } from './gen/sdk/sdk_pb.js';
import { SIGNATURE_REQUEST_HANDLER_ID } from './constants.js';
import type { MessageBody } from './messages.js';
import { P2PProtocolError } from './errors.js';
import type { P2PAnswer } from './connection-types.js';
import { cutPeerText } from '../util/peer-text.js';

export const APP_ERROR = { unexpected: -1, unregisteredHandler: -2, notValidator: -3, throttled: -4 } as const;
export const EVM_VERIFIER_ERROR = { parse: 1, verify: 2 } as const;

/**
 * The name of one of the p2p SDK's own AppError codes (negative, the same on every chain), or
 * `other`. The positive codes are the chain's verifier's, named per VM by the service
 * (service/app-error-kinds.ts), which knows which chain it asked.
 */
export function appErrorName(code: number): string {
  switch (code) {
    case -1:
      return 'unexpected';
    case -2:
      return 'unregistered-handler';
    case -3:
      return 'not-validator';
    case -4:
      return 'throttled';
    default:
      return 'other';
  }
}

/**
 * An AppError as the answer to a request: a refusal with its code and the peer's message, cut
 * where it enters (a megabyte message costs a few bytes on the wire, zstd).
 */
export function appErrorAnswer(e: { errorCode: number; errorMessage: string }): P2PAnswer {
  return { kind: 'refused', code: e.errorCode, reason: cutPeerText(e.errorMessage) };
}

export function encodeUvarint(value: number): Uint8Array {
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Uint8Array.from(out);
}

/** Go's binary.Uvarint; undefined where it reports bytesRead <= 0 (too short or overflow). */
export function decodeUvarint(bytes: Uint8Array): { value: bigint; length: number } | undefined {
  let value = 0n;
  let shift = 0n;
  for (let i = 0; i < bytes.length && i < 10; i++) {
    const b = bytes[i]!;
    if (i === 9 && b > 1) return undefined;
    value |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return { value, length: i + 1 };
    shift += 7n;
  }
  return undefined;
}

export function encodeSignatureRequestAppBytes(message: Uint8Array, justification: Uint8Array): Uint8Array {
  const body = toBinary(SignatureRequestSchema, create(SignatureRequestSchema, { message, justification }));
  const prefix = encodeUvarint(SIGNATURE_REQUEST_HANDLER_ID);
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix);
  out.set(body, prefix.length);
  return out;
}

/**
 * app_bytes by request: an aggregation asks every validator with one request object, so its
 * SignatureRequest is encoded once, not once per validator.
 */
const appBytesOf = new WeakMap<object, Uint8Array>();

/** The AppRequest asking a node to sign: its deadline is relative, in nanoseconds, and positive. */
export function signatureAppRequest(req: { chainId: Uint8Array; message: Uint8Array; justification: Uint8Array }, requestId: number, timeoutMs: number): MessageBody {
  const deadline = BigInt(Math.max(1, Math.ceil(timeoutMs))) * 1_000_000n;
  let appBytes = appBytesOf.get(req);
  if (!appBytes) {
    appBytes = encodeSignatureRequestAppBytes(req.message, req.justification);
    appBytesOf.set(req, appBytes);
  }
  return { case: 'appRequest', value: { $typeName: 'p2p.AppRequest', chainId: req.chainId, requestId, deadline, appBytes } };
}

/** Protobuf tags (field number << 3 | wire type) of p2p.Message.app_request (30) and AppRequest's fields. */
const TAG_APP_REQUEST = [0xf2, 0x01];
const TAG_CHAIN_ID = 0x0a;
const TAG_REQUEST_ID = 0x10;
const TAG_DEADLINE = 0x18;
const TAG_APP_BYTES = 0x22;

/** What every AppRequest for one request object shares: chain_id's field and app_bytes' field, encoded once. */
interface AppRequestParts {
  chainField: Uint8Array;
  appBytesField: Uint8Array;
}

const partsOf = new WeakMap<object, AppRequestParts>();

function lengthDelimited(tag: number, bytes: Uint8Array): Uint8Array {
  // proto3 leaves an empty bytes field out.
  if (bytes.length === 0) return new Uint8Array(0);
  const len = encodeUvarint(bytes.length);
  const out = new Uint8Array(1 + len.length + bytes.length);
  out[0] = tag;
  out.set(len, 1);
  out.set(bytes, 1 + len.length);
  return out;
}

function uvarintLength(value: number): number {
  let n = 1;
  for (let v = value; v >= 0x80; v = Math.floor(v / 128)) n++;
  return n;
}

function writeUvarint(out: Uint8Array, at: number, value: number): number {
  let v = value;
  while (v >= 0x80) {
    out[at++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  out[at++] = v;
  return at;
}

/**
 * The framed, uncompressed p2p.Message carrying signatureAppRequest(req, requestId, timeoutMs):
 * the same bytes as encodeFrame(encodeMessage(…)) (fields in number order, as the codec writes
 * them), with everything but the request ID and the deadline encoded once per request object.
 * The generic codec cost ~10 µs per request (bench --transport p2p --cpu-prof). Throws
 * P2PProtocolError('oversized-frame') past maxBytes, as encodeFrame does.
 */
export function appRequestFrame(req: { chainId: Uint8Array; message: Uint8Array; justification: Uint8Array }, requestId: number, timeoutMs: number, maxBytes: number): Uint8Array {
  let parts = partsOf.get(req);
  if (!parts) {
    let appBytes = appBytesOf.get(req);
    if (!appBytes) {
      appBytes = encodeSignatureRequestAppBytes(req.message, req.justification);
      appBytesOf.set(req, appBytes);
    }
    parts = { chainField: lengthDelimited(TAG_CHAIN_ID, req.chainId), appBytesField: lengthDelimited(TAG_APP_BYTES, appBytes) };
    partsOf.set(req, parts);
  }
  const deadline = Math.max(1, Math.ceil(timeoutMs)) * 1_000_000;
  if (!Number.isSafeInteger(deadline) || !Number.isInteger(requestId) || requestId < 1 || requestId > 0xffffffff) {
    throw new RangeError(`request ID ${requestId} or timeout ${timeoutMs} ms out of range`);
  }
  const bodyLength = parts.chainField.length + 1 + uvarintLength(requestId) + 1 + uvarintLength(deadline) + parts.appBytesField.length;
  const messageLength = TAG_APP_REQUEST.length + uvarintLength(bodyLength) + bodyLength;
  if (messageLength > maxBytes) throw new P2PProtocolError('oversized-frame', `message of ${messageLength} bytes exceeds the ${maxBytes}-byte limit`);
  const out = new Uint8Array(4 + messageLength);
  new DataView(out.buffer).setUint32(0, messageLength);
  let at = 4;
  out[at++] = TAG_APP_REQUEST[0]!;
  out[at++] = TAG_APP_REQUEST[1]!;
  at = writeUvarint(out, at, bodyLength);
  out.set(parts.chainField, at);
  at += parts.chainField.length;
  out[at++] = TAG_REQUEST_ID;
  at = writeUvarint(out, at, requestId);
  out[at++] = TAG_DEADLINE;
  at = writeUvarint(out, at, deadline);
  out.set(parts.appBytesField, at);
  return out;
}

/** The signature of an AppResponse's app_bytes; throws for bytes that are not a SignatureResponse. */
export function decodeSignatureResponse(appBytes: Uint8Array): Uint8Array {
  return fromBinary(SignatureResponseSchema, appBytes).signature;
}

export function encodeSignatureResponse(signature: Uint8Array): Uint8Array {
  return toBinary(SignatureResponseSchema, create(SignatureResponseSchema, { signature }));
}

export function decodeSignatureRequest(bytes: Uint8Array): { message: Uint8Array; justification: Uint8Array } {
  const r = fromBinary(SignatureRequestSchema, bytes);
  return { message: r.message, justification: r.justification };
}

/** Hands out odd uint32 request IDs, skipping those still in use. */
export class OddRequestIds {
  private next = 1;
  private wrapped = false;

  take(inUse: (id: number) => boolean): number {
    for (let tries = 0; tries < 0x80000000; tries++) {
      const id = this.next;
      if (id >= 0xffffffff) this.wrapped = true;
      this.next = id >= 0xffffffff ? 1 : id + 2;
      if (!inUse(id)) return id;
    }
    throw new Error('no free request ID');
  }

  /** Whether `id` was ever handed out (every odd ID once the counter wrapped). */
  issued(id: number): boolean {
    return id % 2 === 1 && (this.wrapped || id < this.next);
  }
}
