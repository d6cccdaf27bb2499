// The unsigned Warp message (vms/platformvm/warp/unsigned_message.go):
// `0000 | networkID u32 | sourceChainID[32] | u32 len + payload`. Validators sign these exact
// bytes, codec version included, and its ID is their sha256.
import { sha256 } from '@noble/hashes/sha2.js';
import { ByteReader, ByteWriter, MAX_PAYLOAD_BYTES } from './codec.js';
import { ID_LENGTH } from './cb58.js';

export interface UnsignedMessage {
  networkId: number;
  sourceChainId: Uint8Array;
  payload: Uint8Array;
  /** The encoded message: what validators sign. */
  bytes: Uint8Array;
  /** messageID = sha256(bytes). */
  id: Uint8Array;
}

const WHAT = 'UnsignedMessage';
/** Codec version, networkID, sourceChainID, payload length. */
const UNSIGNED_MESSAGE_HEADER_BYTES = 2 + 4 + ID_LENGTH + 4;

/**
 * Reads an unsigned message at the reader's position and leaves the
 * reader just past it, so a signed message can continue with the signature.
 * Payloads are capped at 24 KiB: avalanchego's payload codec cannot produce or accept more.
 */
export function readUnsignedMessage(r: ByteReader, maxPayloadBytes = MAX_PAYLOAD_BYTES): UnsignedMessage {
  const start = r.offset;
  r.expectCodecVersion();
  const networkId = r.u32('networkID');
  const sourceChainId = r.fixed('sourceChainID', ID_LENGTH);
  const payload = r.varBytes('payload', maxPayloadBytes);
  const bytes = r.copyFrom(start);
  return { networkId, sourceChainId, payload, bytes, id: sha256(bytes) };
}

/**
 * `maxPayloadBytes`: avalanchego's own parse (vms/platformvm/warp's codec) has no cap, and leaves
 * the 24 KiB to the payload codec; the simulated node parses as it does.
 */
export function parseUnsignedMessage(bytes: Uint8Array, opts: { maxPayloadBytes?: number } = {}): UnsignedMessage {
  const r = new ByteReader(bytes, WHAT);
  const msg = readUnsignedMessage(r, opts.maxPayloadBytes);
  r.end();
  return msg;
}

export function newUnsignedMessage(networkId: number, sourceChainId: Uint8Array, payload: Uint8Array): UnsignedMessage {
  const w = new ByteWriter(WHAT, UNSIGNED_MESSAGE_HEADER_BYTES + payload.length)
    .codecVersion()
    .u32('networkID', networkId)
    .fixed('sourceChainID', sourceChainId, ID_LENGTH)
    .varBytes('payload', payload, MAX_PAYLOAD_BYTES);
  const bytes = w.bytes();
  return {
    networkId,
    sourceChainId: Uint8Array.from(sourceChainId),
    payload: Uint8Array.from(payload),
    bytes,
    id: sha256(bytes),
  };
}
