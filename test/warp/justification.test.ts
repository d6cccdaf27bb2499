import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  bytesToHex,
  concatBytes,
  decodeL1ValidatorRegistrationJustification as decode,
  encodeL1ValidatorRegistrationJustification as encode,
  hexToBytes,
  WarpFormatError,
} from '../../src/warp/index.js';
import { formatError } from './format-error.js';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/warp-vectors.json', import.meta.url), 'utf8'));
const subnetHex = vectors.validationIdFromIndex.subnetID as string;
const subnetId = hexToBytes(subnetHex);
const register = hexToBytes(vectors.l1Messages.registerL1Validator.bytes);
const h = hexToBytes;


describe('L1ValidatorRegistrationJustification protobuf', () => {
  it('encodes SubnetIDIndex as proto.Marshal does (index 0 omitted)', () => {
    expect(bytesToHex(encode({ type: 'SubnetIdIndex', subnetId, index: 5 }))).toBe(`0a240a20${subnetHex}1005`);
    expect(bytesToHex(encode({ type: 'SubnetIdIndex', subnetId, index: 0 }))).toBe(`0a220a20${subnetHex}`);
    expect(bytesToHex(encode({ type: 'SubnetIdIndex', subnetId, index: 300 }))).toBe(`0a250a20${subnetHex}10ac02`);
  });

  it('encodes the RegisterL1Validator message as field 2, even when empty', () => {
    const bytes = encode({ type: 'RegisterL1ValidatorMessage', message: register });
    expect(register.length).toBe(182);
    expect(bytesToHex(bytes.subarray(0, 3))).toBe('12b601');
    expect(bytesToHex(encode({ type: 'RegisterL1ValidatorMessage', message: new Uint8Array(0) }))).toBe('1200');
  });

  it('round-trips both preimages', () => {
    for (const j of [
      { type: 'SubnetIdIndex', subnetId, index: 0 },
      { type: 'SubnetIdIndex', subnetId, index: 0xffff_ffff },
      { type: 'RegisterL1ValidatorMessage', message: register },
    ] as const) {
      expect(decode(encode(j))).toEqual(j);
    }
  });

  it('skips unknown fields of every wire type, and known fields with the wrong wire type', () => {
    const noise = h('189601' + '21' + '0102030405060708' + '2d' + '01020304' + '3202aabb' + '3b' + '0801' + '3c' + '0801');
    const real = encode({ type: 'SubnetIdIndex', subnetId, index: 7 });
    expect(decode(concatBytes(noise, real, h('4001')))).toEqual({ type: 'SubnetIdIndex', subnetId, index: 7 });
    // Inside SubnetIDIndex too: an unknown field 3 and subnet_id sent as a varint are skipped.
    const innerWithNoise = concatBytes(h('1801'), h('0801'), h(`0a20${subnetHex}`), h('1009'));
    expect(decode(concatBytes(Uint8Array.of(0x0a, innerWithNoise.length), innerWithNoise))).toEqual({ type: 'SubnetIdIndex', subnetId, index: 9 });
  });

  it('the last oneof member wins; a repeated SubnetIDIndex merges', () => {
    const sub = encode({ type: 'SubnetIdIndex', subnetId, index: 3 });
    const reg = encode({ type: 'RegisterL1ValidatorMessage', message: register });
    expect(decode(concatBytes(sub, reg))).toEqual({ type: 'RegisterL1ValidatorMessage', message: register });
    expect(decode(concatBytes(reg, sub))).toEqual({ type: 'SubnetIdIndex', subnetId, index: 3 });
    const onlyIndex = h('0a021004');
    expect(decode(concatBytes(sub, onlyIndex))).toEqual({ type: 'SubnetIdIndex', subnetId, index: 4 });
  });

  it('keeps the low 32 bits of an oversized uint32, as Go does', () => {
    // index varint = 2^32 + 5
    const inner = concatBytes(h(`0a20${subnetHex}`), h('1085808080' + '10'));
    expect(decode(concatBytes(Uint8Array.of(0x0a, inner.length), inner))).toEqual({ type: 'SubnetIdIndex', subnetId, index: 5 });
  });

  it('rejects malformed input with WarpFormatError', () => {
    expect(formatError(() => decode(new Uint8Array(0))).what).toBe('L1ValidatorRegistrationJustification.preimage');
    expect(formatError(() => decode(h('0a020801'))).what).toMatch(/subnet_id$/);
    formatError(() => decode(h('0affffffffffffffffff7f'))); // varint overflow
    formatError(() => decode(h('0e'))); // wire type 6
    formatError(() => decode(h('02'))); // field number 0
    formatError(() => decode(h('0c'))); // end-group without a group
    formatError(() => decode(h('3b0801'))); // group never closed
    formatError(() => decode(h('3b4c'))); // group closed by another field's end-group
    formatError(() => decode(new Uint8Array(64 * 1024 + 1)));
    const good = encode({ type: 'RegisterL1ValidatorMessage', message: register });
    for (let n = 0; n < good.length; n++) formatError(() => decode(good.subarray(0, n)));
    formatError(() => encode({ type: 'SubnetIdIndex', subnetId: new Uint8Array(31), index: 0 }));
    formatError(() => encode({ type: 'SubnetIdIndex', subnetId, index: -1 }));
  });
});
