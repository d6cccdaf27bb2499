// Malformed input must fail with WarpFormatError naming the field (and, for bytes, the offset):
// never a RangeError, never a silent partial decode.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  cb58Decode,
  concatBytes,
  encodeAddressedCall,
  encodeL1Message,
  encodeSignedMessage,
  hexToBytes,
  MAX_PAYLOAD_BYTES,
  newPChainMessage,
  newUnsignedMessage,
  parseConversionData,
  parseId,
  parseL1Message,
  parseNodeId,
  parsePayload,
  parsePChainMessage,
  parseSignedMessage,
  parseUnsignedMessage,
  parseWarpMessage,
  validationIdOfRegistration,
  WarpFormatError,
} from '../../src/warp/index.js';
import { formatError } from './format-error.js';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/warp-vectors.json', import.meta.url), 'utf8'));
const h = (hex: string) => hexToBytes(hex);


function mutate(bytes: Uint8Array, at: number, value: number): Uint8Array {
  const copy = Uint8Array.from(bytes);
  copy[at] = value;
  return copy;
}

const signed = h(vectors.signedMessages[0].signedMessage);
const unsigned = h(vectors.signedMessages[0].unsignedMessage);
const l1 = vectors.l1Messages;

const parsers: [string, (b: Uint8Array) => unknown, Uint8Array][] = [
  ['parseSignedMessage', parseSignedMessage, signed],
  ['parseUnsignedMessage', parseUnsignedMessage, unsigned],
  ['parsePayload (Hash)', parsePayload, h(vectors.payloads.hash.bytes)],
  ['parsePayload (AddressedCall)', parsePayload, h(vectors.payloads.addressedCall.bytes)],
  ['parseL1Message (SubnetToL1Conversion)', parseL1Message, h(l1.subnetToL1Conversion.bytes)],
  ['parseL1Message (RegisterL1Validator)', parseL1Message, h(l1.registerL1Validator.bytes)],
  ['parseL1Message (L1ValidatorRegistration)', parseL1Message, h(l1.l1ValidatorRegistration.bytes)],
  ['parseL1Message (L1ValidatorWeight)', parseL1Message, h(l1.l1ValidatorWeight.bytes)],
  ['parseConversionData', parseConversionData, h(vectors.conversionData.bytes)],
];

describe('truncation, trailing bytes, codec version', () => {
  for (const [name, parse, good] of parsers) {
    it(`${name}: every truncation fails with a WarpFormatError that names a field`, () => {
      expect(() => parse(good)).not.toThrow();
      for (let n = 0; n < good.length; n++) {
        const err = formatError(() => parse(good.subarray(0, n)));
        expect(err.offset).toBeTypeOf('number');
        expect(err.what).toMatch(/\.\w/);
      }
    });

    it(`${name}: a trailing byte is rejected at its offset`, () => {
      const err = formatError(() => parse(concatBytes(good, Uint8Array.of(0))));
      expect(err.message).toMatch(/trailing/);
      expect(err.offset).toBe(good.length);
    });

    it(`${name}: codec version 1 is rejected`, () => {
      const err = formatError(() => parse(mutate(good, 1, 1)));
      expect(err.what).toMatch(/codecVersion$/);
      expect(err.offset).toBe(0);
    });
  }

  it('parseWarpMessage: every truncation of a signed message fails except the unsigned part itself', () => {
    for (let n = 0; n < signed.length; n++) {
      if (n === unsigned.length) {
        expect(parseWarpMessage(signed.subarray(0, n)).kind).toBe('unsigned');
        continue;
      }
      formatError(() => parseWarpMessage(signed.subarray(0, n)));
    }
  });

  it('parseSignedMessage refuses an unsigned message, naming the missing signature', () => {
    expect(formatError(() => parseSignedMessage(unsigned)).what).toBe('Message.signature');
  });
});

describe('type IDs, bools, lengths', () => {
  it('an unknown payload type ID', () => {
    const bytes = mutate(h(vectors.payloads.addressedCall.bytes), 5, 2);
    const err = formatError(() => parsePayload(bytes));
    expect(err.what).toBe('WarpPayload.typeID');
    expect(err.offset).toBe(2);
  });

  it('an unknown L1 message type ID', () => {
    const err = formatError(() => parseL1Message(mutate(h(l1.l1ValidatorWeight.bytes), 5, 4)));
    expect(err.what).toBe('L1Message.typeID');
  });

  it('an unknown signature type ID', () => {
    const at = unsigned.length + 3;
    const err = formatError(() => parseSignedMessage(mutate(signed, at, 1)));
    expect(err.what).toBe('Message.signature.typeID');
    expect(err.offset).toBe(unsigned.length);
  });

  it('a bool that is neither 00 nor 01', () => {
    const good = h(l1.l1ValidatorRegistration.bytes);
    expect(parseL1Message(mutate(good, good.length - 1, 1))).toMatchObject({ registered: true });
    const err = formatError(() => parseL1Message(mutate(good, good.length - 1, 2)));
    expect(err.what).toBe('L1Message.L1ValidatorRegistration.registered');
    expect(err.offset).toBe(good.length - 1);
  });

  it('a length that runs past the end', () => {
    const bytes = h(vectors.payloads.addressedCall.bytes);
    bytes.set([0, 0, 0x10, 0], 6); // sourceAddress length 4096
    const err = formatError(() => parsePayload(bytes));
    expect(err.what).toBe('WarpPayload.AddressedCall.sourceAddress');
    expect(err.message).toMatch(/past the end/);
  });

  it('a huge count cannot drive allocation', () => {
    const good = h(l1.registerL1Validator.bytes);
    const countAt = 2 + 4 + 32 + 4 + 20 + 48 + 8 + 4;
    const bytes = Uint8Array.from(good);
    bytes.set([0xff, 0xff, 0xff, 0xff], countAt);
    const err = formatError(() => parseL1Message(bytes));
    expect(err.what).toBe('L1Message.RegisterL1Validator.remainingBalanceOwner.addresses');
    expect(err.offset).toBe(countAt);
  });

  it('a payload length over 24 KiB in an unsigned message', () => {
    const big = new Uint8Array(42 + MAX_PAYLOAD_BYTES + 1);
    new DataView(big.buffer).setUint32(38, MAX_PAYLOAD_BYTES + 1);
    const err = formatError(() => parseUnsignedMessage(big));
    expect(err.what).toBe('UnsignedMessage.payload');
    expect(err.message).toMatch(/exceeds the limit of 24576/);
    expect(() => parseUnsignedMessage(newUnsignedMessage(1, new Uint8Array(32), new Uint8Array(MAX_PAYLOAD_BYTES)).bytes)).not.toThrow();
  });

  it('payloads over 24 KiB neither parse nor encode', () => {
    formatError(() => parsePayload(new Uint8Array(MAX_PAYLOAD_BYTES + 1)));
    formatError(() => encodeAddressedCall(new Uint8Array(20), new Uint8Array(MAX_PAYLOAD_BYTES)));
    formatError(() => newUnsignedMessage(1, new Uint8Array(32), new Uint8Array(MAX_PAYLOAD_BYTES + 1)));
  });

  it('a RegisterL1Validator node ID that is not 20 bytes', () => {
    const good = h(l1.registerL1Validator.bytes);
    const lenAt = 2 + 4 + 32;
    const longer = concatBytes(good.subarray(0, lenAt), Uint8Array.of(0, 0, 0, 32), new Uint8Array(32), good.subarray(lenAt + 4 + 20));
    expect(formatError(() => parseL1Message(longer)).what).toBe('L1Message.RegisterL1Validator.nodeID');
  });

  it('validationIdOfRegistration refuses a message that is not a RegisterL1Validator', () => {
    expect(formatError(() => validationIdOfRegistration(h(l1.l1ValidatorWeight.bytes))).message).toMatch(/RegisterL1Validator/);
  });
});

describe('encoding rejects out-of-range fields', () => {
  it('uint64, uint32 and fixed sizes', () => {
    const base = encodeL1Message({ type: 'L1ValidatorWeight', validationId: new Uint8Array(32), nonce: 0n, weight: 1n });
    expect(base).toHaveLength(54);
    formatError(() => encodeL1Message({ type: 'L1ValidatorWeight', validationId: new Uint8Array(32), nonce: 1n << 64n, weight: 1n }));
    formatError(() => encodeL1Message({ type: 'L1ValidatorWeight', validationId: new Uint8Array(32), nonce: -1n, weight: 1n }));
    formatError(() => encodeL1Message({ type: 'L1ValidatorRegistration', validationId: new Uint8Array(31), registered: true }));
    formatError(() => newUnsignedMessage(2 ** 32, new Uint8Array(32), new Uint8Array(0)));
    formatError(() => newUnsignedMessage(1.5, new Uint8Array(32), new Uint8Array(0)));
    const u = parseUnsignedMessage(unsigned);
    formatError(() => encodeSignedMessage(u, Uint8Array.of(1), new Uint8Array(95)));
  });
});

describe('P-Chain message wrapping', () => {
  const msg = { type: 'L1ValidatorRegistration', validationId: new Uint8Array(32).fill(7), registered: true } as const;

  it('round-trips and refuses other shapes', () => {
    const u = newPChainMessage(5, msg);
    expect(parsePChainMessage(u)).toEqual(msg);
    const otherChain = newUnsignedMessage(5, new Uint8Array(32).fill(1), u.payload);
    expect(formatError(() => parsePChainMessage(otherChain)).what).toBe('UnsignedMessage.sourceChainID');
    const withAddress = newUnsignedMessage(5, new Uint8Array(32), encodeAddressedCall(new Uint8Array(20), encodeL1Message(msg)));
    expect(formatError(() => parsePChainMessage(withAddress)).what).toBe('AddressedCall.sourceAddress');
  });
});

describe('text inputs', () => {
  it('odd and non-hex digits', () => {
    expect(formatError(() => hexToBytes('abc', 'message')).message).toMatch(/odd/);
    expect(formatError(() => hexToBytes('0xzz', 'message')).what).toBe('message');
  });

  it('a bad cb58 checksum', () => {
    const good = vectors.cb58.pChainId.cb58 as string;
    const bad = `${good.slice(0, -1)}${good.endsWith('Y') ? 'Z' : 'Y'}`;
    expect(formatError(() => cb58Decode(bad, 'subnetID')).message).toBe('subnetID: has a bad checksum');
    formatError(() => parseId(bad));
    formatError(() => cb58Decode('0OIl', 'id')); // not base58
  });

  it('node IDs need the prefix, a valid checksum and 20 bytes', () => {
    formatError(() => parseNodeId('111111111111111111116DBWJs'));
    formatError(() => parseNodeId(`NodeID-${vectors.cb58.pChainId.cb58}`));
    expect(parseNodeId('NodeID-111111111111111111116DBWJs')).toEqual(new Uint8Array(20));
  });
});
