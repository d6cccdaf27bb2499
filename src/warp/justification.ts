// The protobuf justification a P-Chain validator needs before it signs
// L1ValidatorRegistration(validationID, registered = false) (proto/platformvm/platformvm.proto):
//
//   message L1ValidatorRegistrationJustification {
//     oneof preimage {
//       SubnetIDIndex convert_subnet_to_l1_tx_data = 1;  // an initial validator of the conversion
//       bytes register_l1_validator_message = 2;         // a RegisterL1Validator payload
//     }
//   }
//   message SubnetIDIndex { bytes subnet_id = 1; uint32 index = 2; }
//
// A small hand-written wire codec: it is two messages, and owning the decoder lets every
// malformation become a WarpFormatError. Decoding follows protobuf's rules: unknown fields (and
// known fields with an unexpected wire type) are skipped, the last oneof member wins, a repeated
// embedded message merges, and uint32 keeps the low 32 bits of the varint.
import { ID_LENGTH } from './cb58.js';
import { WarpFormatError } from './errors.js';
import { concatBytes } from './hex.js';
import { plainBytes } from './codec.js';

export type L1ValidatorRegistrationJustification =
  | { type: 'SubnetIdIndex'; subnetId: Uint8Array; index: number }
  | { type: 'RegisterL1ValidatorMessage'; message: Uint8Array };

/** A RegisterL1Validator payload is at most 24 KiB; this leaves room for framing and unknown fields. */
export const MAX_JUSTIFICATION_BYTES = 64 * 1024;
/** Protobuf itself nests groups at most 10000 deep; nothing legitimate here nests at all. */
const MAX_GROUP_DEPTH = 32;

const WHAT = 'L1ValidatorRegistrationJustification';
const SUBNET_ID_INDEX = 'SubnetIDIndex';

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_BYTES = 2;
const WIRE_START_GROUP = 3;
const WIRE_END_GROUP = 4;
const WIRE_FIXED32 = 5;

// --- encoding ------------------------------------------------------------------------------------

function varint(value: number): Uint8Array {
  const out: number[] = [];
  let v = value;
  while (v > 0x7f) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Uint8Array.from(out);
}

function lengthDelimited(tag: number, bytes: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(tag), varint(bytes.length), bytes);
}

/** Encodes as Go's proto.Marshal does: proto3 scalars at their default value are omitted. */
export function encodeL1ValidatorRegistrationJustification(j: L1ValidatorRegistrationJustification): Uint8Array {
  if (j.type === 'SubnetIdIndex') {
    if (!(j.subnetId instanceof Uint8Array) || j.subnetId.length !== ID_LENGTH) {
      throw new WarpFormatError(`${WHAT}.${SUBNET_ID_INDEX}.subnet_id`, `must be ${ID_LENGTH} bytes`);
    }
    if (!Number.isInteger(j.index) || j.index < 0 || j.index > 0xffff_ffff) {
      throw new WarpFormatError(`${WHAT}.${SUBNET_ID_INDEX}.index`, `must be a uint32, got ${j.index}`);
    }
    const inner = concatBytes(
      lengthDelimited(0x0a, j.subnetId),
      j.index === 0 ? new Uint8Array(0) : concatBytes(Uint8Array.of(0x10), varint(j.index)),
    );
    return lengthDelimited(0x0a, inner);
  }
  if (j.type === 'RegisterL1ValidatorMessage') {
    if (!(j.message instanceof Uint8Array)) throw new WarpFormatError(`${WHAT}.register_l1_validator_message`, 'must be bytes');
    // A set oneof member is always written, even when empty.
    return lengthDelimited(0x12, j.message);
  }
  throw new WarpFormatError(`${WHAT}.preimage`, `unknown type ${String((j as { type?: unknown }).type)}`);
}

// --- decoding ------------------------------------------------------------------------------------

class WireReader {
  at: number;

  constructor(
    readonly bytes: Uint8Array,
    readonly what: string,
    start: number,
    readonly end: number,
  ) {
    this.at = start;
  }

  fail(reason: string, offset = this.at): WarpFormatError {
    return new WarpFormatError(this.what, reason, offset);
  }

  get done(): boolean {
    return this.at >= this.end;
  }

  /** A base-128 varint of at most 10 bytes whose value fits in 64 bits. */
  varint(): bigint {
    const start = this.at;
    let value = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.at >= this.end) throw this.fail('varint runs past the end of the input', start);
      const b = this.bytes[this.at++]!;
      if (i === 9 && b > 1) throw this.fail('varint overflows 64 bits', start);
      value |= BigInt(b & 0x7f) << BigInt(7 * i);
      if (b < 0x80) return value;
    }
    throw this.fail('varint overflows 64 bits', start);
  }

  tag(): { field: number; wire: number; start: number } {
    const start = this.at;
    const t = this.varint();
    const field = t >> 3n;
    if (field === 0n || field > 0x1fff_ffffn) throw this.fail(`invalid field number ${field}`, start);
    return { field: Number(field), wire: Number(t & 7n), start };
  }

  /** The [start, end) range of a length-delimited field's content. */
  lengthDelimited(): { start: number; end: number } {
    const lenStart = this.at;
    const len = this.varint();
    if (len > BigInt(this.end - this.at)) {
      throw this.fail(`length ${len} runs past the end of the input (${this.end - this.at} bytes remain)`, lenStart);
    }
    const start = this.at;
    this.at += Number(len);
    return { start, end: this.at };
  }

  private advance(n: number, start: number): void {
    if (n > this.end - this.at) throw this.fail(`field of ${n} bytes runs past the end of the input`, start);
    this.at += n;
  }

  /** Skips one field's value of the given wire type, as protobuf does for unknown fields. */
  skip(field: number, wire: number, tagStart: number, depth = 0): void {
    switch (wire) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        this.advance(8, tagStart);
        return;
      case WIRE_FIXED32:
        this.advance(4, tagStart);
        return;
      case WIRE_BYTES:
        this.lengthDelimited();
        return;
      case WIRE_START_GROUP: {
        if (depth >= MAX_GROUP_DEPTH) throw this.fail('groups nest too deeply', tagStart);
        for (;;) {
          if (this.done) throw this.fail(`group ${field} is not closed`, tagStart);
          const t = this.tag();
          if (t.wire === WIRE_END_GROUP) {
            if (t.field !== field) throw this.fail(`group ${field} closed by end-group ${t.field}`, t.start);
            return;
          }
          this.skip(t.field, t.wire, t.start, depth + 1);
        }
      }
      case WIRE_END_GROUP:
        throw this.fail(`unexpected end-group for field ${field}`, tagStart);
      default:
        throw this.fail(`invalid wire type ${wire} for field ${field}`, tagStart);
    }
  }
}

function decodeSubnetIdIndex(
  bytes: Uint8Array,
  start: number,
  end: number,
  into: { subnetId: Uint8Array; index: number },
): void {
  const r = new WireReader(bytes, `${WHAT}.${SUBNET_ID_INDEX}`, start, end);
  while (!r.done) {
    const t = r.tag();
    if (t.field === 1 && t.wire === WIRE_BYTES) {
      const range = r.lengthDelimited();
      into.subnetId = bytes.slice(range.start, range.end);
    } else if (t.field === 2 && t.wire === WIRE_VARINT) {
      into.index = Number(r.varint() & 0xffff_ffffn);
    } else {
      r.skip(t.field, t.wire, t.start);
    }
  }
}

/**
 * Decodes the justification and requires what avalanchego's verifier will: a preimage, and for
 * SubnetIDIndex a 32-byte subnet ID.
 */
export function decodeL1ValidatorRegistrationJustification(input: Uint8Array): L1ValidatorRegistrationJustification {
  const bytes = plainBytes(input);
  if (bytes.length > MAX_JUSTIFICATION_BYTES) {
    throw new WarpFormatError(WHAT, `is ${bytes.length} bytes, over the ${MAX_JUSTIFICATION_BYTES}-byte limit`);
  }
  const r = new WireReader(bytes, WHAT, 0, bytes.length);
  let preimage: L1ValidatorRegistrationJustification | undefined;
  let preimageOffset = 0;
  while (!r.done) {
    const t = r.tag();
    if (t.field === 1 && t.wire === WIRE_BYTES) {
      const range = r.lengthDelimited();
      // A repeated embedded message merges into the one already set.
      const into = preimage?.type === 'SubnetIdIndex' ? preimage : { type: 'SubnetIdIndex' as const, subnetId: new Uint8Array(0), index: 0 };
      decodeSubnetIdIndex(bytes, range.start, range.end, into);
      preimage = into;
      preimageOffset = range.start;
    } else if (t.field === 2 && t.wire === WIRE_BYTES) {
      const range = r.lengthDelimited();
      preimage = { type: 'RegisterL1ValidatorMessage', message: bytes.slice(range.start, range.end) };
      preimageOffset = range.start;
    } else {
      r.skip(t.field, t.wire, t.start);
    }
  }
  if (!preimage) throw new WarpFormatError(`${WHAT}.preimage`, 'is not set (expected field 1 or 2)');
  if (preimage.type === 'SubnetIdIndex' && preimage.subnetId.length !== ID_LENGTH) {
    throw new WarpFormatError(
      `${WHAT}.${SUBNET_ID_INDEX}.subnet_id`,
      `must be ${ID_LENGTH} bytes, got ${preimage.subnetId.length}`,
      preimageOffset,
    );
  }
  return preimage;
}
