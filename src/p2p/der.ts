// A minimal DER reader with the acceptance rules of Go's golang.org/x/crypto/cryptobyte
// ReadASN1 (definite, minimally encoded lengths; single-byte tags), which avalanchego's
// staking/parse.go uses to read peer certificates. Only what that parser needs.

export const TAG_INTEGER = 0x02;
export const TAG_BIT_STRING = 0x03;
export const TAG_OID = 0x06;
export const TAG_SEQUENCE = 0x30;
/** [0] EXPLICIT, constructed, context-specific: the certificate version. */
export const TAG_CONTEXT_0 = 0xa0;

interface DerElement {
  tag: number;
  body: Uint8Array;
}

export class DerReader {
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {}

  get empty(): boolean {
    return this.at >= this.bytes.length;
  }

  peekTag(): number | undefined {
    return this.empty ? undefined : this.bytes[this.at];
  }

  /** Reads one element; undefined when the bytes there are not valid DER (or end early). */
  read(): DerElement | undefined {
    const b = this.bytes;
    if (this.at + 2 > b.length) return undefined;
    const tag = b[this.at]!;
    // cryptobyte does not support high tag numbers.
    if ((tag & 0x1f) === 0x1f) return undefined;
    const first = b[this.at + 1]!;
    let length: number;
    let header: number;
    if ((first & 0x80) === 0) {
      length = first;
      header = 2;
    } else {
      const lenBytes = first & 0x7f;
      // Indefinite lengths and lengths beyond 4 bytes are refused, as cryptobyte does.
      if (lenBytes === 0 || lenBytes > 4 || this.at + 2 + lenBytes > b.length) return undefined;
      length = 0;
      for (let i = 0; i < lenBytes; i++) length = length * 256 + b[this.at + 2 + i]!;
      // Minimal encoding: no long form below 128, no leading zero byte.
      if (length < 128 || b[this.at + 2]! === 0) return undefined;
      header = 2 + lenBytes;
    }
    const start = this.at + header;
    if (start + length > b.length) return undefined;
    this.at = start + length;
    return { tag, body: b.subarray(start, start + length) };
  }

  /** Reads an element with this tag; undefined if the next element has another tag or is bad. */
  readTagged(tag: number): Uint8Array | undefined {
    if (this.peekTag() !== tag) return undefined;
    return this.read()?.body;
  }

  /** Skips an element with this tag if present (true), or reports a bad one (false). */
  skipOptional(tag: number): boolean {
    if (this.peekTag() !== tag) return true;
    return this.read() !== undefined;
  }
}

/** Dotted OID text of an OBJECT IDENTIFIER body; undefined for a malformed one. */
export function decodeOid(body: Uint8Array): string | undefined {
  if (body.length === 0) return undefined;
  const arcs: number[] = [];
  let value = 0;
  let started = false;
  for (const byte of body) {
    if (!started && byte === 0x80) return undefined; // non-minimal arc
    started = true;
    value = value * 128 + (byte & 0x7f);
    if (value > Number.MAX_SAFE_INTEGER) return undefined;
    if ((byte & 0x80) === 0) {
      arcs.push(value);
      value = 0;
      started = false;
    }
  }
  if (started) return undefined;
  const firstArc = arcs[0]!;
  const head = firstArc < 80 ? [Math.floor(firstArc / 40), firstArc % 40] : [2, firstArc - 80];
  return [...head, ...arcs.slice(1)].join('.');
}

/** An INTEGER body as an unsigned big-endian magnitude; undefined if negative or non-minimal. */
export function positiveIntegerMagnitude(body: Uint8Array): Uint8Array | undefined {
  if (body.length === 0) return undefined;
  if (body.length > 1 && body[0] === 0 && (body[1]! & 0x80) === 0) return undefined;
  if (body.length > 1 && body[0] === 0xff && (body[1]! & 0x80) !== 0) return undefined;
  if ((body[0]! & 0x80) !== 0) return undefined;
  return body[0] === 0 ? body.subarray(1) : body;
}
