// zstd for compressed_zstd messages. avalanchego compresses GetPeerList, PeerList and App*
// with zstd by default (message/outbound_msg_builder.go, utils/constants/networking.go
// DefaultNetworkCompressionType) and refuses a message that decompresses past 2 MiB
// (utils/compression/zstd_compressor.go). The codec is the reference libzstd compiled to wasm
// and shipped inside the npm package (@bokuweb/zstd-wasm; no install-time download). Its
// one-shot decompress sizes the output from the frame header, so the header is checked here
// first: a declared content size must be within the cap; without one the output buffer is the
// cap itself and libzstd fails rather than write past it. Nothing is allocated at a size the
// sender chose beyond the cap.
import { compress, decompress, init } from '@bokuweb/zstd-wasm';
import { P2PProtocolError } from './errors.js';

const ZSTD_MAGIC = 0xfd2fb528;
let ready: Promise<void> | undefined;
let initialized = false;

/** Loads the wasm codec once; call (and await) before encoding or decoding compressed messages. */
export function initCompression(): Promise<void> {
  ready ??= init().then(() => {
    initialized = true;
  });
  return ready;
}

function assertReady(): void {
  if (!initialized) throw new Error('zstd is not initialised: await initCompression() first');
}

export function zstdCompress(bytes: Uint8Array): Uint8Array {
  assertReady();
  return compress(bytes, 3);
}

/** The content size a zstd frame header declares (undefined when absent); throws on a bad header. */
export function zstdDeclaredContentSize(frame: Uint8Array): bigint | undefined {
  if (frame.length < 6) throw new P2PProtocolError('bad-compression', 'zstd frame is too short');
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  if (view.getUint32(0, true) !== ZSTD_MAGIC) throw new P2PProtocolError('bad-compression', 'not a zstd frame');
  const descriptor = frame[4]!;
  if (descriptor & 0x08) throw new P2PProtocolError('bad-compression', 'zstd frame header sets a reserved bit');
  const fcsFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const dictIdFlag = descriptor & 3;
  const fcsBytes = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
  const at = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][dictIdFlag]!;
  if (frame.length < at + fcsBytes) throw new P2PProtocolError('bad-compression', 'zstd frame header is truncated');
  switch (fcsBytes) {
    case 0:
      return undefined;
    case 1:
      return BigInt(frame[at]!);
    case 2:
      return BigInt(view.getUint16(at, true) + 256);
    case 4:
      return BigInt(view.getUint32(at, true));
    default:
      return view.getBigUint64(at, true);
  }
}

/** Decompresses one zstd payload, refusing output beyond `maxBytes`. */
export function zstdDecompressCapped(frame: Uint8Array, maxBytes: number): Uint8Array {
  assertReady();
  const declared = zstdDeclaredContentSize(frame);
  if (declared !== undefined && declared > BigInt(maxBytes)) {
    throw new P2PProtocolError('bad-compression', `zstd frame declares ${declared} bytes, more than ${maxBytes}`);
  }
  try {
    // With a declared size the library allocates exactly that (checked above); without one, the cap.
    return decompress(frame, { defaultHeapSize: maxBytes });
  } catch (err) {
    throw new P2PProtocolError('bad-compression', `zstd: ${(err as Error).message} (more than ${maxBytes} bytes or corrupt)`);
  }
}
