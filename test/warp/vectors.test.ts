// Every byte-format vector of the golden fixture (avalanchego-derived): decode, check the fields,
// encode again, and get the identical bytes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  bytesToHex,
  cb58Decode,
  cb58Encode,
  conversionId,
  decodeSigners,
  encodeAddressedCall,
  encodeConversionData,
  encodeHashPayload,
  encodeL1Message,
  encodeSignedMessage,
  encodeSigners,
  hexToBytes,
  idToString,
  newUnsignedMessage,
  P_CHAIN_ID,
  parseConversionData,
  parseId,
  parseL1Message,
  parsePayload,
  parseSignedMessage,
  parseUnsignedMessage,
  parseWarpMessage,
  validationIdFromIndex,
  validationIdOfRegistration,
  type L1Message,
} from '../../src/warp/index.js';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/warp-vectors.json', import.meta.url), 'utf8'));
const h = (hex: string) => hexToBytes(hex);
const hx = (bytes: Uint8Array) => bytesToHex(bytes);

describe('payload vectors', () => {
  it('Hash decodes to its hash and re-encodes identically', () => {
    const v = vectors.payloads.hash;
    const p = parsePayload(h(v.bytes));
    expect(p).toEqual({ type: 'Hash', hash: h(v.hash) });
    expect(hx(encodeHashPayload(h(v.hash)))).toBe(v.bytes);
  });

  it('AddressedCall decodes to source address and payload and re-encodes identically', () => {
    const v = vectors.payloads.addressedCall;
    const p = parsePayload(h(v.bytes));
    expect(p).toEqual({ type: 'AddressedCall', sourceAddress: h(v.sourceAddress), payload: h(v.payload) });
    expect(hx(encodeAddressedCall(h(v.sourceAddress), h(v.payload)))).toBe(v.bytes);
  });
});

describe('L1 message vectors', () => {
  const l1 = vectors.l1Messages;

  it('SubnetToL1Conversion', () => {
    const msg = parseL1Message(h(l1.subnetToL1Conversion.bytes));
    expect(msg).toEqual({ type: 'SubnetToL1Conversion', conversionId: h(l1.subnetToL1Conversion.conversionID) });
    expect(hx(encodeL1Message(msg))).toBe(l1.subnetToL1Conversion.bytes);
  });

  it('RegisterL1Validator, including its validationID', () => {
    const v = l1.registerL1Validator;
    const expected: L1Message = {
      type: 'RegisterL1Validator',
      subnetId: h(v.subnetID),
      nodeId: h(v.nodeID),
      blsPublicKey: h(v.blsPublicKey),
      expiry: BigInt(v.expiry),
      remainingBalanceOwner: { threshold: v.remainingBalanceOwner.threshold, addresses: v.remainingBalanceOwner.addresses.map(h) },
      disableOwner: { threshold: v.disableOwner.threshold, addresses: v.disableOwner.addresses.map(h) },
      weight: BigInt(v.weight),
    };
    const msg = parseL1Message(h(v.bytes));
    expect(msg).toEqual(expected);
    expect(hx(encodeL1Message(expected))).toBe(v.bytes);
    expect(hx(validationIdOfRegistration(h(v.bytes)))).toBe(v.validationID);
  });

  it('L1ValidatorRegistration', () => {
    const v = l1.l1ValidatorRegistration;
    const msg = parseL1Message(h(v.bytes));
    expect(msg).toEqual({ type: 'L1ValidatorRegistration', validationId: h(v.validationID), registered: v.registered });
    expect(hx(encodeL1Message(msg))).toBe(v.bytes);
  });

  it('L1ValidatorWeight', () => {
    const v = l1.l1ValidatorWeight;
    const msg = parseL1Message(h(v.bytes));
    expect(msg).toEqual({ type: 'L1ValidatorWeight', validationId: h(v.validationID), nonce: BigInt(v.nonce), weight: BigInt(v.weight) });
    expect(hx(encodeL1Message(msg))).toBe(v.bytes);
  });
});

describe('conversion data and validation IDs', () => {
  it('conversion data round-trips and hashes to the conversionID', () => {
    const v = vectors.conversionData;
    const data = parseConversionData(h(v.bytes));
    expect(data.validators).toHaveLength(1);
    expect(hx(encodeConversionData(data))).toBe(v.bytes);
    expect(hx(conversionId(data))).toBe(v.conversionID);
  });

  it('validationID from a subnet ID and index', () => {
    const v = vectors.validationIdFromIndex;
    expect(hx(validationIdFromIndex(h(v.subnetID), 0))).toBe(v.index0);
    expect(hx(validationIdFromIndex(h(v.subnetID), 1))).toBe(v.index1);
  });
});

describe('bitset vectors', () => {
  for (const v of vectors.bitsets as { indices: number[]; hex: string }[]) {
    it(`{${v.indices.join(',')}} <-> '${v.hex}'`, () => {
      expect(hx(encodeSigners(v.indices))).toBe(v.hex);
      expect(decodeSigners(h(v.hex))).toEqual(v.indices);
    });
  }
});

describe('signed message vectors', () => {
  for (const v of vectors.signedMessages) {
    it(`${v.source}: fields, messageID, signers, payload, identical re-encoding`, () => {
      const signed = parseSignedMessage(h(v.signedMessage));
      expect(signed.unsigned.networkId).toBe(v.networkID);
      expect(hx(signed.unsigned.sourceChainId)).toBe(v.sourceChainID);
      expect(hx(signed.unsigned.bytes)).toBe(v.unsignedMessage);
      expect(hx(signed.unsigned.id)).toBe(v.messageID);
      expect(hx(signed.signers)).toBe(v.signersHex);
      expect(decodeSigners(signed.signers)).toEqual(v.signerIndices);
      expect(hx(signed.bytes)).toBe(v.signedMessage);

      const payload = parsePayload(signed.unsigned.payload);
      expect(payload.type).toBe(v.payload.type);
      if (payload.type !== 'AddressedCall') throw new Error('expected an AddressedCall');
      expect(hx(payload.sourceAddress)).toBe(v.payload.sourceAddress);
      const inner = parseL1Message(payload.payload);
      expect(inner).toEqual({
        type: v.payload.inner.type,
        validationId: h(v.payload.inner.validationID),
        nonce: BigInt(v.payload.inner.nonce),
        weight: BigInt(v.payload.inner.weight),
      });

      const rebuilt = newUnsignedMessage(signed.unsigned.networkId, signed.unsigned.sourceChainId, encodeAddressedCall(payload.sourceAddress, encodeL1Message(inner)));
      expect(hx(rebuilt.bytes)).toBe(v.unsignedMessage);
      expect(hx(rebuilt.id)).toBe(v.messageID);
      expect(hx(encodeSignedMessage(rebuilt, signed.signers, signed.signature))).toBe(v.signedMessage);

      const unsigned = parseUnsignedMessage(h(v.unsignedMessage));
      expect(unsigned).toEqual(signed.unsigned);
      expect(parseWarpMessage(h(v.unsignedMessage)).kind).toBe('unsigned');
      expect(parseWarpMessage(h(v.signedMessage)).kind).toBe('signed');
    });
  }

  const set = vectors.canonicalSet;
  for (const c of set.cases) {
    it(`canonicalSet case {${c.signerIndices.join(',')}} parses and re-encodes`, () => {
      const signed = parseSignedMessage(h(c.signedMessage));
      expect(hx(signed.unsigned.bytes)).toBe(set.unsignedMessage);
      expect(hx(signed.unsigned.id)).toBe(set.messageID);
      expect(hx(signed.signers)).toBe(c.signersHex);
      expect(decodeSigners(signed.signers, set.canonical.length)).toEqual(c.signerIndices);
      expect(hx(signed.signature)).toBe(c.aggregateSignature);
      const reencoded = encodeSignedMessage(parseUnsignedMessage(h(set.unsignedMessage)), encodeSigners(c.signerIndices), h(c.aggregateSignature));
      expect(hx(reencoded)).toBe(c.signedMessage);
    });
  }
});

describe('cb58 vectors', () => {
  it('the P-Chain ID', () => {
    const v = vectors.cb58.pChainId;
    expect(hx(P_CHAIN_ID)).toBe(v.hex);
    expect(idToString(h(v.hex))).toBe(v.cb58);
    expect(cb58Encode(h(v.hex))).toBe(v.cb58);
    expect(hx(cb58Decode(v.cb58))).toBe(v.hex);
    expect(hx(parseId(v.cb58))).toBe(v.hex);
    expect(hx(parseId(`0x${v.hex}`))).toBe(v.hex);
  });
});

describe('Buffer input (what sockets deliver)', () => {
  it('decodes to plain Uint8Array copies that do not alias the input', () => {
    const buf = Buffer.from(vectors.signedMessages[0].signedMessage, 'hex');
    const signed = parseSignedMessage(buf);
    const expected = parseSignedMessage(h(vectors.signedMessages[0].signedMessage));
    expect(signed).toEqual(expected);
    expect(signed.signature.constructor).toBe(Uint8Array);
    expect(signed.unsigned.bytes.constructor).toBe(Uint8Array);
    buf.fill(0);
    expect(signed).toEqual(expected);
  });
});
