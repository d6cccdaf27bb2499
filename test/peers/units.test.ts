import { describe, expect, it } from 'vitest';
import { backoffDelay, validateBackoff } from '../../src/peers/backoff.js';
import { CloseCode, ProtocolError, closeReason, decodeFrame, encodeSign, encodeSignature } from '../../src/peers/frames.js';
import { PenaltyBox } from '../../src/util/penalty-box.js';

const LIMIT = 1024;
const decode = (from: 'service' | 'signer', frame: unknown, limit = LIMIT) =>
  decodeFrame(Buffer.from(typeof frame === 'string' ? frame : JSON.stringify(frame)), false, from as 'signer', limit);

function closeCodeOf(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof ProtocolError) return err.code;
    throw err;
  }
  return undefined;
}

describe('frame decoding', () => {
  it('accepts each frame type from the side that sends it', () => {
    expect(decode('service', { v: 1, type: 'challenge', challenge: 'ab'.repeat(32) })).toEqual({ v: 1, type: 'challenge', challenge: 'ab'.repeat(32) });
    expect(decode('signer', { v: 1, type: 'refused', id: 0, reason: 'no' })).toEqual({ v: 1, type: 'refused', id: 0, reason: 'no' });
    const sign = decodeFrame(encodeSign(3, Uint8Array.of(0, 0xff), Uint8Array.of(7)), true, 'service', LIMIT);
    expect(sign).toEqual({ v: 1, type: 'sign', id: 3, message: Uint8Array.of(0, 0xff), justification: Uint8Array.of(7) });
    const sig = Uint8Array.from({ length: 96 }, (_, i) => i);
    expect(decodeFrame(encodeSignature(9, sig), true, 'signer', LIMIT)).toEqual({ v: 1, type: 'signature', id: 9, signature: sig });
  });

  it('carries the uncompressed form as its own binary kind, and the welcome that asks for it', () => {
    const sig = Uint8Array.from({ length: 192 }, (_, i) => i);
    const frame = encodeSignature(4, sig);
    expect(frame[1]).toBe(0x03);
    expect(decodeFrame(frame, true, 'signer', LIMIT)).toEqual({ v: 1, type: 'signature', id: 4, signature: sig });
    expect(encodeSignature(4, new Uint8Array(96))[1]).toBe(0x02);
    expect(() => encodeSignature(4, new Uint8Array(95))).toThrow(RangeError);
    expect(decode('service', { v: 1, type: 'welcome', uncompressedSignatures: true })).toEqual({ v: 1, type: 'welcome', uncompressedSignatures: true });
    // A welcome without the field (every service before it) asks for the compressed form.
    expect(decode('service', { v: 1, type: 'welcome' })).toEqual({ v: 1, type: 'welcome' });
    expect(closeCodeOf(() => decode('service', { v: 1, type: 'welcome', uncompressedSignatures: 'yes' }))).toBe(CloseCode.malformed);
  });

  it('carries every safe integer id, and an empty message and justification, through a binary frame', () => {
    for (const id of [0, 1, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER]) {
      expect(decodeFrame(encodeSign(id, new Uint8Array(), new Uint8Array()), true, 'service', LIMIT)).toEqual({
        v: 1,
        type: 'sign',
        id,
        message: new Uint8Array(),
        justification: new Uint8Array(),
      });
    }
  });

  it('hands out copies, not views into the socket buffer', () => {
    const frame = encodeSignature(1, new Uint8Array(96).fill(5));
    const decoded = decodeFrame(frame, true, 'signer', LIMIT) as { signature: Uint8Array };
    frame.fill(0);
    expect(decoded.signature.every((b) => b === 5)).toBe(true);
    expect(decoded.signature.byteOffset).toBe(0);
    expect(decoded.signature.buffer.byteLength).toBe(96);
  });

  const binary = (from: 'service' | 'signer', bytes: Buffer | number[]) => () =>
    decodeFrame(Buffer.from(bytes), true, from as 'signer', LIMIT);
  const signature = encodeSignature(0, new Uint8Array(96));
  it.each([
    ['a header cut short', binary('signer', [1, 2, 0, 0]), CloseCode.malformed],
    ['a binary frame of version 2', binary('signer', Buffer.concat([Buffer.of(2), signature.subarray(1)])), CloseCode.badVersion],
    ['an unknown binary kind', binary('signer', Buffer.concat([Buffer.of(1, 9), signature.subarray(2)])), CloseCode.unknownType],
    ['a signature of 95 bytes', binary('signer', signature.subarray(0, 105)), CloseCode.malformed],
    ['a signature of 97 bytes', binary('signer', Buffer.concat([signature, Buffer.of(0)])), CloseCode.malformed],
    ['a 96-byte signature in an uncompressed frame', binary('signer', Buffer.concat([Buffer.of(1, 3), signature.subarray(2)])), CloseCode.malformed],
    ['a 192-byte signature in a compressed frame', binary('signer', Buffer.concat([signature, Buffer.alloc(96)])), CloseCode.malformed],
    ['an uncompressed signature frame sent to a signer', binary('service', encodeSignature(0, new Uint8Array(192))), CloseCode.unexpected],
    ['an id beyond 2^53 - 1', binary('signer', Buffer.concat([Buffer.of(1, 2, 0, 0x20), signature.subarray(4)])), CloseCode.malformed],
    ['a sign frame sent to the service', binary('signer', encodeSign(0, new Uint8Array(4), new Uint8Array())), CloseCode.unexpected],
    ['a signature frame sent to a signer', binary('service', signature), CloseCode.unexpected],
    ['a sign frame whose message length runs past its end', binary('service', Buffer.concat([encodeSign(0, new Uint8Array(4), new Uint8Array()).subarray(0, 13), Buffer.of(9, 0, 0)])), CloseCode.malformed],
    ['a sign frame without its message length', binary('service', encodeSign(0, new Uint8Array(), new Uint8Array()).subarray(0, 12)), CloseCode.malformed],
    ['an oversized binary frame', () => decodeFrame(Buffer.alloc(LIMIT + 1, 1), true, 'signer', LIMIT), CloseCode.tooBig],
  ])('closes on %s', (_name, fn, code) => {
    expect(closeCodeOf(fn)).toBe(code);
  });

  it.each([
    ['not JSON', '{', CloseCode.malformed],
    ['an array', '[1]', CloseCode.malformed],
    ['no version', { type: 'refused', id: 0, reason: '' }, CloseCode.badVersion],
    ['version 2', { v: 2, type: 'refused', id: 0, reason: '' }, CloseCode.badVersion],
    ['an unknown type', { v: 1, type: 'hi' }, CloseCode.unknownType],
    ['a service frame from a signer', { v: 1, type: 'sign', id: 0, message: '', justification: '' }, CloseCode.unexpected],
    ['a negative id', { v: 1, type: 'refused', id: -1, reason: '' }, CloseCode.malformed],
    ['a fractional id', { v: 1, type: 'refused', id: 1.5, reason: '' }, CloseCode.malformed],
    ['a signature as JSON (signatures are binary frames)', { v: 1, type: 'signature', id: 0, signature: '00'.repeat(96) }, CloseCode.malformed],
    ['a short public key', { v: 1, type: 'hello', publicKey: '00'.repeat(47), proof: '00'.repeat(96) }, CloseCode.malformed],
    ['a reason that is not a string', { v: 1, type: 'refused', id: 0, reason: 5 }, CloseCode.malformed],
    ['an oversized frame', { v: 1, type: 'refused', id: 0, reason: 'x'.repeat(LIMIT) }, CloseCode.tooBig],
  ])('closes on %s', (_name, frame, code) => {
    expect(closeCodeOf(() => decode('signer', frame))).toBe(code);
  });

  it('names the offending field', () => {
    expect(() => decode('signer', { v: 1, type: 'hello', publicKey: 'zz', proof: '00'.repeat(96) })).toThrow(/publicKey/);
    expect(() => decodeFrame(encodeSignature(0, new Uint8Array(96)).subarray(0, 50), true, 'signer', LIMIT)).toThrow(/signature/);
  });

  it('keeps close reasons within the 123 bytes WebSocket allows', () => {
    expect(Buffer.byteLength(closeReason('é'.repeat(200)))).toBeLessThanOrEqual(123);
    expect(closeReason('short')).toBe('short');
  });
});

describe('reconnect backoff', () => {
  const opts = { minMs: 100, maxMs: 1_000 };
  it('grows exponentially up to the cap, with full jitter', () => {
    expect(backoffDelay(0, opts, () => 0.999)).toBe(99);
    expect(backoffDelay(3, opts, () => 0.999)).toBe(799);
    expect(backoffDelay(10, opts, () => 0.999)).toBe(999);
    expect(backoffDelay(10_000, opts, () => 0.999)).toBe(999);
    expect(backoffDelay(5, opts, () => 0)).toBe(0);
  });
  it('rejects nonsense settings', () => {
    expect(() => validateBackoff({ minMs: 0, maxMs: 10 })).toThrow(RangeError);
    expect(() => validateBackoff({ minMs: 10, maxMs: 5 })).toThrow(RangeError);
  });
});

describe('penalties', () => {
  it('starts a cooldown at the threshold within the window, and ends it', () => {
    let now = 0;
    const box = new PenaltyBox({ threshold: 3, windowMs: 1_000, cooldownMs: 5_000 }, () => now);
    expect(box.strike('k')).toBe(false);
    now = 1_500; // the first strike has left the window
    expect(box.strike('k')).toBe(false);
    expect(box.strike('k')).toBe(false);
    expect(box.cooldownRemaining('k')).toBe(0);
    expect(box.strike('k')).toBe(true);
    expect(box.cooldownRemaining('k')).toBe(5_000);
    now += 5_000;
    expect(box.cooldownRemaining('k')).toBe(0);
  });
  it('remembers a bounded number of keys', () => {
    const box = new PenaltyBox({ threshold: 2, windowMs: 1_000, cooldownMs: 1_000, maxTrackedKeys: 2 }, () => 0);
    box.strike('a');
    box.strike('b');
    box.strike('c'); // forgets a
    expect(box.strike('a')).toBe(false);
    expect(box.strike('c')).toBe(true);
  });
  it('ban restores a cooldown without strikes (a restarted p2p shard); none for 0 ms', () => {
    let now = 0;
    const box = new PenaltyBox({ threshold: 3, windowMs: 1_000, cooldownMs: 5_000 }, () => now);
    box.ban('k', 2_000);
    expect(box.cooldownRemaining('k')).toBe(2_000);
    box.ban('z', 0);
    expect(box.cooldownRemaining('z')).toBe(0);
    now = 2_000;
    expect(box.cooldownRemaining('k')).toBe(0);
  });
});
