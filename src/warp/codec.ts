// avalanchego's linear codec, the primitives only: big-endian integers, fixed arrays without a
// prefix, `[]byte` and `[]T` with a uint32 length, and a uint16 codec version (always 0) at the
// start of every top-level marshal. Every read is bounds-checked so a malformed input surfaces as
// a WarpFormatError naming the field and offset, never as a RangeError from a typed array.
import { WarpFormatError } from './errors.js';

export const CODEC_VERSION = 0;

/** avalanchego's payload codec refuses to marshal or unmarshal more than 24 KiB. */
export const MAX_PAYLOAD_BYTES = 24 * 1024;

const U8_MAX = 0xff;
const U16_MAX = 0xffff;
const U32_MAX = 0xffff_ffff;
const U64_MAX = (1n << 64n) - 1n;

/**
 * A plain Uint8Array view of `bytes`. Node's Buffer (what sockets deliver) is a Uint8Array whose
 * `slice` returns a view instead of a copy; decoding through a plain view keeps every decoded
 * field a real copy of plain Uint8Array type.
 */
export function plainBytes(bytes: Uint8Array): Uint8Array {
  if (!(bytes instanceof Uint8Array)) throw new WarpFormatError('input', 'must be bytes');
  return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export class ByteReader {
  private readonly input: Uint8Array;
  private readonly view: DataView;
  private at = 0;

  /** `what` names the structure being decoded (e.g. `UnsignedMessage`) in every error. */
  constructor(
    input: Uint8Array,
    readonly what: string,
  ) {
    this.input = plainBytes(input);
    this.view = new DataView(this.input.buffer, this.input.byteOffset, this.input.byteLength);
  }

  /** Bytes consumed so far. */
  get offset(): number {
    return this.at;
  }

  get remaining(): number {
    return this.input.length - this.at;
  }

  /** A copy of the input from `start` up to the current offset (e.g. a message's own bytes). */
  copyFrom(start: number): Uint8Array {
    return this.input.slice(start, this.at);
  }

  /** A WarpFormatError for `field` at the current offset (or the given one). */
  fail(field: string, reason: string, offset = this.at): WarpFormatError {
    return new WarpFormatError(`${this.what}.${field}`, reason, offset);
  }

  private need(field: string, n: number): void {
    if (n > this.remaining) {
      throw this.fail(field, `needs ${n} byte${n === 1 ? '' : 's'} but only ${this.remaining} remain`);
    }
  }

  u8(field: string): number {
    this.need(field, 1);
    const v = this.view.getUint8(this.at);
    this.at += 1;
    return v;
  }

  u16(field: string): number {
    this.need(field, 2);
    const v = this.view.getUint16(this.at);
    this.at += 2;
    return v;
  }

  u32(field: string): number {
    this.need(field, 4);
    const v = this.view.getUint32(this.at);
    this.at += 4;
    return v;
  }

  u64(field: string): bigint {
    this.need(field, 8);
    const v = this.view.getBigUint64(this.at);
    this.at += 8;
    return v;
  }

  /** The codec accepts exactly `00` and `01`; anything else is a decode error, not `true`. */
  bool(field: string): boolean {
    const start = this.at;
    const v = this.u8(field);
    if (v > 1) throw this.fail(field, `is a bool but holds 0x${v.toString(16).padStart(2, '0')} (only 00 or 01)`, start);
    return v === 1;
  }

  /** `n` raw bytes (a Go `[N]byte`), copied so the result does not alias the input. */
  fixed(field: string, n: number): Uint8Array {
    this.need(field, n);
    const out = this.input.slice(this.at, this.at + n);
    this.at += n;
    return out;
  }

  /** A Go `[]byte`: uint32 length, then that many bytes, at most `maxLen`. */
  varBytes(field: string, maxLen: number): Uint8Array {
    const start = this.at;
    const len = this.u32(`${field}.length`);
    if (len > maxLen) throw this.fail(field, `length ${len} exceeds the limit of ${maxLen} bytes`, start);
    if (len > this.remaining) {
      throw this.fail(field, `length ${len} runs past the end of the input (${this.remaining} bytes remain)`, start);
    }
    return this.fixed(field, len);
  }

  /**
   * The uint32 element count of a Go `[]T` whose elements take at least `minElementSize` bytes.
   * Rejecting counts the remaining bytes cannot hold keeps a bogus count from driving allocation.
   */
  count(field: string, minElementSize: number): number {
    const start = this.at;
    const n = this.u32(`${field}.count`);
    if (n * minElementSize > this.remaining) {
      throw this.fail(field, `count ${n} runs past the end of the input (${this.remaining} bytes remain)`, start);
    }
    return n;
  }

  /** Reads the uint16 codec version that opens every top-level marshal; only 0 exists. */
  expectCodecVersion(): void {
    const start = this.at;
    const v = this.u16('codecVersion');
    if (v !== CODEC_VERSION) throw this.fail('codecVersion', `is ${v}, expected ${CODEC_VERSION}`, start);
  }

  /** Decoding must consume the whole input: trailing bytes are an error, as in avalanchego. */
  end(): void {
    if (this.remaining !== 0) {
      throw new WarpFormatError(this.what, `has ${this.remaining} trailing byte${this.remaining === 1 ? '' : 's'}`, this.at);
    }
  }
}

export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  private at = 0;

  /** `what` names the structure being encoded in range errors. */
  constructor(
    readonly what: string,
    initialCapacity = 64,
  ) {
    this.buf = new Uint8Array(Math.max(8, initialCapacity));
    this.view = new DataView(this.buf.buffer);
  }

  private fail(field: string, reason: string): WarpFormatError {
    return new WarpFormatError(`${this.what}.${field}`, reason);
  }

  private reserve(n: number): void {
    if (this.at + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.at + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  private checkInt(field: string, v: number, max: number): void {
    if (!Number.isInteger(v) || v < 0 || v > max) throw this.fail(field, `must be an integer from 0 to ${max}, got ${v}`);
  }

  u8(field: string, v: number): this {
    this.checkInt(field, v, U8_MAX);
    this.reserve(1);
    this.view.setUint8(this.at, v);
    this.at += 1;
    return this;
  }

  u16(field: string, v: number): this {
    this.checkInt(field, v, U16_MAX);
    this.reserve(2);
    this.view.setUint16(this.at, v);
    this.at += 2;
    return this;
  }

  u32(field: string, v: number): this {
    this.checkInt(field, v, U32_MAX);
    this.reserve(4);
    this.view.setUint32(this.at, v);
    this.at += 4;
    return this;
  }

  u64(field: string, v: bigint): this {
    if (typeof v !== 'bigint' || v < 0n || v > U64_MAX) throw this.fail(field, `must be a uint64, got ${String(v)}`);
    this.reserve(8);
    this.view.setBigUint64(this.at, v);
    this.at += 8;
    return this;
  }

  bool(field: string, v: boolean): this {
    if (typeof v !== 'boolean') throw this.fail(field, 'must be a boolean');
    return this.u8(field, v ? 1 : 0);
  }

  /** A Go `[N]byte`: exactly `n` bytes, no prefix. */
  fixed(field: string, bytes: Uint8Array, n: number): this {
    if (!(bytes instanceof Uint8Array) || bytes.length !== n) {
      throw this.fail(field, `must be ${n} bytes, got ${bytes instanceof Uint8Array ? bytes.length : typeof bytes}`);
    }
    return this.raw(bytes);
  }

  /** A Go `[]byte`: uint32 length, then the bytes; at most `maxLen`. */
  varBytes(field: string, bytes: Uint8Array, maxLen: number): this {
    if (!(bytes instanceof Uint8Array)) throw this.fail(field, 'must be bytes');
    if (bytes.length > maxLen) throw this.fail(field, `length ${bytes.length} exceeds the limit of ${maxLen} bytes`);
    this.u32(`${field}.length`, bytes.length);
    return this.raw(bytes);
  }

  codecVersion(): this {
    return this.u16('codecVersion', CODEC_VERSION);
  }

  /** Bytes with no prefix (already-encoded parts). */
  raw(bytes: Uint8Array): this {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.at);
    this.at += bytes.length;
    return this;
  }

  get length(): number {
    return this.at;
  }

  /** The encoded bytes (a copy sized exactly). */
  bytes(): Uint8Array {
    return this.buf.slice(0, this.at);
  }
}
