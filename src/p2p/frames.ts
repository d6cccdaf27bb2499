// Framing (network/peer/msg_length.go, peer.go readMessages): a 4-byte big-endian length that
// does not count itself, then that many bytes of p2p.Message. A length over the cap is refused
// as soon as its 4 bytes arrive, before any of the body is buffered.
import { P2PProtocolError } from './errors.js';

const FRAME_HEADER_BYTES = 4;

export function encodeFrame(body: Uint8Array, maxBytes: number): Uint8Array {
  if (body.length > maxBytes) throw new P2PProtocolError('oversized-frame', `message of ${body.length} bytes exceeds the ${maxBytes}-byte limit`);
  const out = new Uint8Array(FRAME_HEADER_BYTES + body.length);
  new DataView(out.buffer).setUint32(0, body.length);
  out.set(body, FRAME_HEADER_BYTES);
  return out;
}

/** Splits a byte stream into frame bodies; holds at most one frame (≤ maxBytes) plus one chunk. */
export class FrameDecoder {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  private expected: number | undefined;
  /** Set once an oversized length was read; the stream is unusable from there on. */
  error: P2PProtocolError | undefined;

  constructor(private readonly maxBytes: number) {}

  get bufferedBytes(): number {
    return this.buffered;
  }

  /**
   * Adds bytes and returns the frames they complete. An oversized length sets `error` (the
   * frames completed before it are still returned, in order) and nothing more is read.
   */
  push(chunk: Uint8Array): Uint8Array[] {
    if (this.error) return [];
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Uint8Array[] = [];
    for (;;) {
      if (this.expected === undefined) {
        if (this.buffered < FRAME_HEADER_BYTES) break;
        const header = this.take(FRAME_HEADER_BYTES);
        const length = new DataView(header.buffer, header.byteOffset, 4).getUint32(0);
        if (length > this.maxBytes) {
          this.error = new P2PProtocolError('oversized-frame', `peer announced a ${length}-byte message; the limit is ${this.maxBytes}`);
          this.chunks = [];
          this.buffered = 0;
          break;
        }
        this.expected = length;
      }
      if (this.buffered < this.expected) break;
      frames.push(this.take(this.expected));
      this.expected = undefined;
    }
    return frames;
  }

  private take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const head = this.chunks[0]!;
      const need = n - at;
      if (head.length <= need) {
        out.set(head, at);
        at += head.length;
        this.chunks.shift();
      } else {
        out.set(head.subarray(0, need), at);
        this.chunks[0] = head.subarray(need);
        at += need;
      }
    }
    this.buffered -= n;
    return out;
  }
}
