// Warp payloads (vms/platformvm/warp/payload), the content of UnsignedMessage.payload. Each is a
// top-level marshal with its own codec version and a type ID:
//   Hash:          0000 | 00000000 | hash[32]
//   AddressedCall: 0000 | 00000001 | u32 len + sourceAddress | u32 len + payload
// The payload codec caps the whole encoding at 24 KiB, in both directions.
import { ByteReader, ByteWriter, MAX_PAYLOAD_BYTES } from './codec.js';
import { ID_LENGTH } from './cb58.js';
import { WarpFormatError } from './errors.js';

export const HASH_PAYLOAD_TYPE_ID = 0;
export const ADDRESSED_CALL_TYPE_ID = 1;

export type WarpPayload =
  | { type: 'Hash'; hash: Uint8Array }
  | { type: 'AddressedCall'; sourceAddress: Uint8Array; payload: Uint8Array };

const WHAT = 'WarpPayload';

export function parsePayload(bytes: Uint8Array): WarpPayload {
  if (bytes.length > MAX_PAYLOAD_BYTES) {
    throw new WarpFormatError(WHAT, `is ${bytes.length} bytes, over the ${MAX_PAYLOAD_BYTES}-byte payload limit`);
  }
  const r = new ByteReader(bytes, WHAT);
  r.expectCodecVersion();
  const typeStart = r.offset;
  const typeId = r.u32('typeID');
  let out: WarpPayload;
  if (typeId === HASH_PAYLOAD_TYPE_ID) {
    out = { type: 'Hash', hash: r.fixed('Hash.hash', ID_LENGTH) };
  } else if (typeId === ADDRESSED_CALL_TYPE_ID) {
    const sourceAddress = r.varBytes('AddressedCall.sourceAddress', MAX_PAYLOAD_BYTES);
    const payload = r.varBytes('AddressedCall.payload', MAX_PAYLOAD_BYTES);
    out = { type: 'AddressedCall', sourceAddress, payload };
  } else {
    throw r.fail('typeID', `is ${typeId}, not a known payload type (0 = Hash, 1 = AddressedCall)`, typeStart);
  }
  r.end();
  return out;
}

function checkSize(bytes: Uint8Array): Uint8Array {
  if (bytes.length > MAX_PAYLOAD_BYTES) {
    throw new WarpFormatError(WHAT, `would be ${bytes.length} bytes, over the ${MAX_PAYLOAD_BYTES}-byte payload limit`);
  }
  return bytes;
}

export function encodeHashPayload(hash: Uint8Array): Uint8Array {
  return new ByteWriter(WHAT, 38).codecVersion().u32('typeID', HASH_PAYLOAD_TYPE_ID).fixed('Hash.hash', hash, ID_LENGTH).bytes();
}

/** P-Chain (ACP-77) messages use an empty source address; EVM chains the 20-byte caller. */
export function encodeAddressedCall(sourceAddress: Uint8Array, payload: Uint8Array): Uint8Array {
  return checkSize(
    new ByteWriter(WHAT, 14 + sourceAddress.length + payload.length)
      .codecVersion()
      .u32('typeID', ADDRESSED_CALL_TYPE_ID)
      .varBytes('AddressedCall.sourceAddress', sourceAddress, MAX_PAYLOAD_BYTES)
      .varBytes('AddressedCall.payload', payload, MAX_PAYLOAD_BYTES)
      .bytes(),
  );
}

export function encodePayload(p: WarpPayload): Uint8Array {
  return p.type === 'Hash' ? encodeHashPayload(p.hash) : encodeAddressedCall(p.sourceAddress, p.payload);
}
