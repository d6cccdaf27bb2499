// Property tests: random values round-trip through encode/parse, anything that parses re-encodes
// to the same bytes, and random or mutated input never raises anything but WarpFormatError.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bytesToHex,
  cb58Decode,
  cb58Encode,
  decodeL1ValidatorRegistrationJustification,
  decodeSigners,
  describeWarpMessage,
  encodeConversionData,
  encodeL1Message,
  encodeL1ValidatorRegistrationJustification,
  encodePayload,
  encodeSignedMessage,
  encodeSigners,
  hexToBytes,
  MAX_PAYLOAD_BYTES,
  newPChainMessage,
  newUnsignedMessage,
  parseConversionData,
  parseId,
  parseL1Message,
  parseMessageInput,
  parseNodeId,
  parsePayload,
  parsePChainMessage,
  parseSignedMessage,
  parseUnsignedMessage,
  parseWarpMessage,
  unwrapSendWarpMessageLogData,
  validationIdOfRegistration,
  WarpFormatError,
  type ConversionData,
  type L1Message,
  type L1ValidatorRegistrationJustification,
  type WarpPayload,
} from '../../src/warp/index.js';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/warp-vectors.json', import.meta.url), 'utf8'));
const RUNS = { numRuns: 300 };

const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });
const someBytes = (max: number) => fc.uint8Array({ maxLength: max });
const u32 = fc.nat({ max: 0xffff_ffff });
const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const owner = fc.record({ threshold: u32, addresses: fc.array(bytes(20), { maxLength: 4 }) });

const l1Message: fc.Arbitrary<L1Message> = fc.oneof(
  fc.record({ type: fc.constant('SubnetToL1Conversion' as const), conversionId: bytes(32) }),
  fc.record({
    type: fc.constant('RegisterL1Validator' as const),
    subnetId: bytes(32),
    nodeId: bytes(20),
    blsPublicKey: bytes(48),
    expiry: u64,
    remainingBalanceOwner: owner,
    disableOwner: owner,
    weight: u64,
  }),
  fc.record({ type: fc.constant('L1ValidatorRegistration' as const), validationId: bytes(32), registered: fc.boolean() }),
  fc.record({ type: fc.constant('L1ValidatorWeight' as const), validationId: bytes(32), nonce: u64, weight: u64 }),
);

const payload: fc.Arbitrary<WarpPayload> = fc.oneof(
  fc.record({ type: fc.constant('Hash' as const), hash: bytes(32) }),
  fc.record({ type: fc.constant('AddressedCall' as const), sourceAddress: someBytes(32), payload: someBytes(300) }),
);

const conversionData: fc.Arbitrary<ConversionData> = fc.record({
  subnetId: bytes(32),
  managerChainId: bytes(32),
  managerAddress: someBytes(40),
  validators: fc.array(fc.record({ nodeId: someBytes(32), blsPublicKey: bytes(48), weight: u64 }), { maxLength: 5 }),
});

const justification: fc.Arbitrary<L1ValidatorRegistrationJustification> = fc.oneof(
  fc.record({ type: fc.constant('SubnetIdIndex' as const), subnetId: bytes(32), index: u32 }),
  fc.record({ type: fc.constant('RegisterL1ValidatorMessage' as const), message: someBytes(400) }),
);

const signerSet = fc.uniqueArray(fc.nat({ max: 2100 }), { maxLength: 300 });

describe('round trips', () => {
  it('unsigned and signed messages', () => {
    fc.assert(
      fc.property(u32, bytes(32), someBytes(600), signerSet, bytes(96), (networkId, chain, body, signers, sig) => {
        const u = newUnsignedMessage(networkId, chain, body);
        expect(u.bytes.length).toBe(42 + body.length);
        expect(parseUnsignedMessage(u.bytes)).toEqual(u);
        const signedBytes = encodeSignedMessage(u, encodeSigners(signers), sig);
        const s = parseSignedMessage(signedBytes);
        expect(s.unsigned).toEqual(u);
        expect(s.signature).toEqual(sig);
        expect(decodeSigners(s.signers)).toEqual([...signers].sort((a, b) => a - b));
        expect(parseWarpMessage(signedBytes).kind).toBe('signed');
      }),
      RUNS,
    );
  });

  it('payloads', () => {
    fc.assert(fc.property(payload, (p) => {
      expect(parsePayload(encodePayload(p))).toEqual(p);
    }), RUNS);
  });

  it('L1 messages, alone and wrapped as P-Chain messages', () => {
    fc.assert(
      fc.property(l1Message, u32, (m, networkId) => {
        const encoded = encodeL1Message(m);
        expect(parseL1Message(encoded)).toEqual(m);
        if (m.type === 'RegisterL1Validator') expect(validationIdOfRegistration(encoded)).toHaveLength(32);
        const u = newPChainMessage(networkId, m);
        expect(parsePChainMessage(parseUnsignedMessage(u.bytes))).toEqual(m);
      }),
      RUNS,
    );
  });

  it('conversion data', () => {
    fc.assert(fc.property(conversionData, (d) => {
      expect(parseConversionData(encodeConversionData(d))).toEqual(d);
    }), RUNS);
  });

  it('signers bitsets are minimal and decode to the sorted set', () => {
    fc.assert(
      fc.property(signerSet, (set) => {
        const enc = encodeSigners(set);
        if (set.length) expect(enc[0]).not.toBe(0);
        expect(decodeSigners(enc, set.length ? Math.max(...set) + 1 : 0)).toEqual([...set].sort((a, b) => a - b));
      }),
      RUNS,
    );
  });

  it('justifications', () => {
    fc.assert(
      fc.property(justification, (j) => {
        expect(decodeL1ValidatorRegistrationJustification(encodeL1ValidatorRegistrationJustification(j))).toEqual(j);
      }),
      RUNS,
    );
  });

  it('cb58', () => {
    fc.assert(fc.property(someBytes(64), (b) => {
      expect(cb58Decode(cb58Encode(b))).toEqual(b);
    }), RUNS);
  });
});

// --- hostile input -------------------------------------------------------------------------------

function onlyFormatErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof WarpFormatError)) throw err;
  }
}

/** Every binary parser; where one succeeds, its output must re-encode to the same bytes. */
function parseEverything(b: Uint8Array): void {
  onlyFormatErrors(() => expect(encodePayload(parsePayload(b))).toEqual(b));
  onlyFormatErrors(() => expect(encodeL1Message(parseL1Message(b))).toEqual(b));
  onlyFormatErrors(() => expect(encodeConversionData(parseConversionData(b))).toEqual(b));
  onlyFormatErrors(() => {
    const u = parseUnsignedMessage(b);
    expect(newUnsignedMessage(u.networkId, u.sourceChainId, u.payload).bytes).toEqual(b);
  });
  onlyFormatErrors(() => {
    const s = parseSignedMessage(b);
    expect(encodeSignedMessage(s.unsigned, s.signers, s.signature)).toEqual(b);
  });
  onlyFormatErrors(() => parseWarpMessage(b));
  onlyFormatErrors(() => parsePChainMessage(parseUnsignedMessage(b)));
  onlyFormatErrors(() => describeWarpMessage(b));
  onlyFormatErrors(() => expect(encodeSigners(decodeSigners(b, 100))).toEqual(b));
  onlyFormatErrors(() => decodeL1ValidatorRegistrationJustification(b));
  onlyFormatErrors(() => validationIdOfRegistration(b));
  onlyFormatErrors(() => unwrapSendWarpMessageLogData(b));
  onlyFormatErrors(() => parseMessageInput(bytesToHex(b)));
}

const seeds: Uint8Array[] = [
  vectors.signedMessages[0].signedMessage,
  vectors.signedMessages[0].unsignedMessage,
  vectors.payloads.hash.bytes,
  vectors.payloads.addressedCall.bytes,
  vectors.l1Messages.subnetToL1Conversion.bytes,
  vectors.l1Messages.registerL1Validator.bytes,
  vectors.l1Messages.l1ValidatorRegistration.bytes,
  vectors.l1Messages.l1ValidatorWeight.bytes,
  vectors.conversionData.bytes,
  ...vectors.canonicalSet.cases.map((c: { signedMessage: string }) => c.signedMessage),
].map((x: string) => hexToBytes(x));

const mutation = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.nat({ max: 255 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), value: fc.nat({ max: 255 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), value: fc.constant(0) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat(), value: fc.constant(0) }),
);

function applyMutations(seed: Uint8Array, ms: { kind: 'set' | 'insert' | 'delete' | 'truncate'; at: number; value: number }[]): Uint8Array {
  let b = Array.from(seed);
  for (const m of ms) {
    const at = b.length ? m.at % (b.length + 1) : 0;
    if (m.kind === 'set' && at < b.length) b[at] = m.value;
    else if (m.kind === 'insert') b.splice(at, 0, m.value);
    else if (m.kind === 'delete') b.splice(at, 1);
    else if (m.kind === 'truncate') b = b.slice(0, at);
  }
  return Uint8Array.from(b);
}

describe('hostile input raises only WarpFormatError', () => {
  it('random bytes, every parser', () => {
    fc.assert(fc.property(someBytes(400), (b) => parseEverything(b)), { numRuns: 500 });
  });

  it('mutated valid messages, every parser', () => {
    fc.assert(
      fc.property(fc.constantFrom(...seeds), fc.array(mutation, { minLength: 1, maxLength: 4 }), (seed, ms) => {
        parseEverything(applyMutations(seed, ms));
      }),
      { numRuns: 1500 },
    );
  });

  it('a payload length field set to anything', () => {
    const base = seeds[1]!;
    fc.assert(
      fc.property(u32, (len) => {
        const b = Uint8Array.from(base);
        new DataView(b.buffer).setUint32(38, len);
        onlyFormatErrors(() => parseUnsignedMessage(b));
        if (len > MAX_PAYLOAD_BYTES) expect(() => parseUnsignedMessage(b)).toThrow(WarpFormatError);
      }),
      RUNS,
    );
  });

  it('random text to the hex, cb58, id and node ID parsers', () => {
    const text = fc.oneof(fc.string({ maxLength: 80 }), fc.stringMatching(/^(0x)?[0-9a-fA-F]{0,90}$/), fc.string({ unit: 'binary', maxLength: 60 }));
    fc.assert(
      fc.property(text, (t) => {
        onlyFormatErrors(() => hexToBytes(t));
        onlyFormatErrors(() => cb58Decode(t));
        onlyFormatErrors(() => parseId(t));
        onlyFormatErrors(() => parseNodeId(t));
        onlyFormatErrors(() => parseNodeId(`NodeID-${t}`));
        onlyFormatErrors(() => parseMessageInput(t));
      }),
      { numRuns: 250 },
    );
  });
});
