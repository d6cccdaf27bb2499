import { describe, expect, it } from 'vitest';
import { backoffDelay, validateBackoff } from '../../src/peers/backoff.js';
import { CloseCode, ProtocolError, closeReason, decodeFrame } from '../../src/peers/frames.js';
import { PenaltyBox } from '../../src/peers/penalties.js';

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
    expect(decode('service', { v: 1, type: 'sign', id: 3, message: '00ff', justification: '', extra: true })).toEqual({
      v: 1,
      type: 'sign',
      id: 3,
      message: '00ff',
      justification: '',
    });
    expect(decode('signer', { v: 1, type: 'refused', id: 0, reason: 'no' })).toEqual({ v: 1, type: 'refused', id: 0, reason: 'no' });
    expect(decode('signer', { v: 1, type: 'signature', id: 9, signature: 'AB'.repeat(96) }).type).toBe('signature');
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
    ['a 0x-prefixed signature', { v: 1, type: 'signature', id: 0, signature: `0x${'00'.repeat(95)}` }, CloseCode.malformed],
    ['a short public key', { v: 1, type: 'hello', publicKey: '00'.repeat(47), proof: '00'.repeat(96) }, CloseCode.malformed],
    ['a reason that is not a string', { v: 1, type: 'refused', id: 0, reason: 5 }, CloseCode.malformed],
    ['an oversized frame', { v: 1, type: 'refused', id: 0, reason: 'x'.repeat(LIMIT) }, CloseCode.tooBig],
  ])('closes on %s', (_name, frame, code) => {
    expect(closeCodeOf(() => decode('signer', frame))).toBe(code);
  });

  it('names the offending field', () => {
    expect(() => decode('signer', { v: 1, type: 'signature', id: 0, signature: 'zz' })).toThrow(/signature/);
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
});
