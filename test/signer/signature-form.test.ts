// The form a signer answers in: the 192-byte uncompressed one when the service's welcome asks for
// it (a PeerPool does), the 96-byte compressed one otherwise (a service from before the field).
// Whatever form the backend answers in, the session converts it with every check, and refuses
// rather than sends what does not decode.
import { afterEach, describe, expect, it } from 'vitest';
import { decodeFrame } from '../../src/peers/frames.js';
import type { SignOutcome } from '../../src/signer/types.js';
import { hexToBytes } from '../../src/warp/hex.js';
import { Closer, bls, message, signer, verifies } from '../peers/helpers.js';
import { RawService } from './raw-service.js';

const closer = new Closer();
afterEach(() => closer.closeAll());

/** A listening signer (its own key file backend, or `backend`) and a raw service past its welcome. */
async function welcomed(uncompressedSignatures: boolean | undefined, backend?: (bytes: Uint8Array) => SignOutcome) {
  const sk = bls.generateSecretKey();
  const peer = signer(closer, { sk, ...(backend ? { backend: { sign: async (m) => backend(m.bytes) } } : {}) });
  const { port } = await peer.start();
  const raw = closer.add(await RawService.dial(`ws://127.0.0.1:${port}`), (r) => r.close());
  raw.challenge();
  await raw.next('hello');
  raw.welcome(uncompressedSignatures);
  return { raw, publicKey: bls.publicKeyOf(sk).bytes };
}

/** Sends one sign frame and decodes the answer as the service would. */
async function ask(raw: RawService, bytes: Uint8Array) {
  raw.sign(1, bytes);
  const answer = await raw.next('binary');
  if (answer) return decodeFrame(Buffer.from(hexToBytes(answer.binary as string)), true, 'signer', 1 << 16);
  return raw.next('refused');
}

describe('the signature form a signer answers in', () => {
  it.each([
    ['a welcome that asks for the uncompressed form', true, 192],
    ['a welcome that says no', false, 96],
    ['a welcome from before the field', undefined, 96],
  ])('%s: %i-byte signatures that verify', async (_, flag, length) => {
    const { raw, publicKey } = await welcomed(flag);
    const m = message('form');
    const answer = await ask(raw, m.bytes);
    expect(answer).toMatchObject({ type: 'signature', id: 1 });
    const signature = (answer as { signature: Uint8Array }).signature;
    expect(signature).toHaveLength(length);
    expect(verifies(publicKey, m.bytes, signature)).toBe(true);
  });

  it("converts a backend's compressed signature (a node's answer) to the uncompressed form asked for", async () => {
    const nodeKey = bls.generateSecretKey();
    const { raw } = await welcomed(true, (bytes) => ({ kind: 'signature', signature: bls.sign(nodeKey, bytes).bytes }));
    const m = message('from a node');
    const signature = ((await ask(raw, m.bytes)) as { signature: Uint8Array }).signature;
    expect(signature).toHaveLength(192);
    expect(verifies(bls.publicKeyOf(nodeKey).bytes, m.bytes, signature)).toBe(true);
  });

  it.each([
    ['asked for uncompressed, a compressed one that is no point', true, () => new Uint8Array(96).fill(0xab)],
    ['asked for compressed, an uncompressed one off the curve', false, () => new Uint8Array(192).fill(1)],
    ['a signature of 100 bytes', true, () => new Uint8Array(100)],
    ['the point at infinity, compressed, asked for uncompressed', true, () => Uint8Array.from({ length: 96 }, (_, i) => (i === 0 ? 0xc0 : 0))],
    ['the point at infinity, uncompressed, asked for uncompressed (no conversion)', true, () => Uint8Array.from({ length: 192 }, (_, i) => (i === 0 ? 0x40 : 0))],
  ])('refuses, never sends, what the backend produced that does not decode or is infinity: %s', async (_, flag, produce) => {
    const { raw } = await welcomed(flag, () => ({ kind: 'signature', signature: produce() }));
    raw.sign(1, message('bad backend').bytes);
    const refused = await raw.next('refused');
    expect(refused).toMatchObject({ type: 'refused', id: 1, reason: expect.stringMatching(/^signer error: the backend produced (a |the point at infinity)/) });
    expect(raw.frames.some((f) => 'binary' in f)).toBe(false);
  });
});
