import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  bytesTo0xHex,
  concatBytes,
  describeWarpMessage,
  encodeHashPayload,
  encodeSignedMessage,
  hexToBytes,
  newPChainMessage,
  newUnsignedMessage,
  nodeIdToString,
  parseL1Message,
  WarpFormatError,
} from '../../src/warp/index.js';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/warp-vectors.json', import.meta.url), 'utf8'));
const v = vectors.signedMessages[0];
const ox = (hex: string) => `0x${hex}`;

describe('describeWarpMessage', () => {
  it('describes the signed vector down to the L1 message', () => {
    const d = describeWarpMessage(hexToBytes(v.signedMessage));
    expect(d).toMatchObject({
      kind: 'signed',
      networkId: v.networkID,
      sourceChainId: { hex: ox(v.sourceChainID) },
      messageId: { hex: ox(v.messageID), cb58: expect.any(String) },
      unsignedMessage: ox(v.unsignedMessage),
      signers: ox(v.signersHex),
      signerIndices: v.signerIndices,
      payload: {
        type: 'AddressedCall',
        sourceAddress: ox(v.payload.sourceAddress),
        inner: { type: 'L1ValidatorWeight', validationId: { hex: ox(v.payload.inner.validationID) }, nonce: '4', weight: '41' },
      },
    });
    expect(Object.keys(d).at(-1)).toBe('payload');
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
  });

  it('describes an unsigned message without signature fields', () => {
    const d = describeWarpMessage(hexToBytes(v.unsignedMessage));
    expect(d.kind).toBe('unsigned');
    expect(d).not.toHaveProperty('signers');
    expect(d).not.toHaveProperty('signature');
  });

  it('gives a RegisterL1Validator its validationID and a NodeID- node ID', () => {
    const r = vectors.l1Messages.registerL1Validator;
    const u = newPChainMessage(12345, parseL1Message(hexToBytes(r.bytes)));
    const d = describeWarpMessage(u.bytes);
    expect(d.sourceChainId.cb58).toBe(vectors.cb58.pChainId.cb58);
    expect(d.payload).toMatchObject({
      type: 'AddressedCall',
      sourceAddress: '0x',
      inner: {
        type: 'RegisterL1Validator',
        nodeId: nodeIdToString(hexToBytes(r.nodeID)),
        expiry: r.expiry,
        weight: r.weight,
        validationId: { hex: ox(r.validationID) },
        remainingBalanceOwner: { threshold: r.remainingBalanceOwner.threshold, addresses: r.remainingBalanceOwner.addresses.map(ox) },
      },
    });
  });

  it('shows a SubnetToL1Conversion conversionID', () => {
    const c = vectors.l1Messages.subnetToL1Conversion;
    const d = describeWarpMessage(newPChainMessage(5, parseL1Message(hexToBytes(c.bytes))).bytes);
    expect(d.payload).toMatchObject({ inner: { type: 'SubnetToL1Conversion', conversionId: { hex: ox(c.conversionID) } } });
  });

  it('shows Hash payloads, and unparseable payloads as bytes with the reason', () => {
    const hash = new Uint8Array(32).fill(9);
    expect(describeWarpMessage(newUnsignedMessage(1, hash, encodeHashPayload(hash)).bytes).payload).toEqual({ type: 'Hash', hash: bytesTo0xHex(hash) });
    const odd = describeWarpMessage(newUnsignedMessage(1, hash, Uint8Array.of(1, 2, 3)).bytes);
    expect(odd.payload).toMatchObject({ type: 'unknown', bytes: '0x010203', error: expect.stringMatching(/^WarpPayload\./) });
  });

  it('reports a non-minimal signers bitset instead of failing', () => {
    const u = newUnsignedMessage(1, new Uint8Array(32), encodeHashPayload(new Uint8Array(32)));
    const d = describeWarpMessage(encodeSignedMessage(u, Uint8Array.of(0, 6), new Uint8Array(96)));
    expect(d.signerIndices).toBeNull();
    expect(d.signersError).toMatch(/leading zero/);
  });

  it('throws WarpFormatError when the envelope is malformed', () => {
    expect(() => describeWarpMessage(concatBytes(hexToBytes(v.signedMessage), Uint8Array.of(0)))).toThrow(WarpFormatError);
  });
});
