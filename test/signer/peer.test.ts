import { afterEach, describe, expect, it } from 'vitest';
import { PeerRequestError, type PeerPool } from '../../src/peers/pool.js';
import type { FaultMode } from '../../src/signer/faults.js';
import type { SignerPeer, SignerPeerOptions } from '../../src/signer/peer.js';
import { concatBytes } from '../../src/warp/hex.js';
import { CHAIN_B, Closer, message, once, pool, signer, verifies } from '../peers/helpers.js';

const closer = new Closer();
afterEach(() => closer.closeAll());

const none = new Uint8Array();

async function connected(opts: Partial<SignerPeerOptions> = {}, poolOpts: Parameters<typeof pool>[1] = {}): Promise<{ peer: SignerPeer; p: PeerPool }> {
  const peer = signer(closer, opts);
  const { port } = await peer.start();
  const p = pool(closer, { dial: [{ url: `ws://127.0.0.1:${port}` }], reconnect: { minMs: 5_000, maxMs: 5_000 }, ...poolOpts });
  const up = once(p, 'connected');
  p.start();
  await up;
  return { peer, p };
}

describe('SignerPeer with a key and a policy', () => {
  it('signs an allowed message with a signature that verifies', async () => {
    const { peer, p } = await connected();
    const m = message('allowed');
    const answer = await p.request(peer.publicKeyHex, { message: m.bytes, justification: none });
    expect(answer.kind).toBe('signature');
    if (answer.kind === 'signature') expect(verifies(peer.publicKey, m.bytes, answer.signature)).toBe(true);
  });

  it('refuses another network ID with the reason', async () => {
    const { peer, p } = await connected();
    const answer = await p.request(peer.publicKeyHex, { message: message('x', { networkId: 1 }).bytes, justification: none });
    expect(answer).toEqual({ kind: 'refused', reason: "network ID 1 is not this signer's network 12345" });
  });

  it('refuses another source chain with the reason', async () => {
    const { peer, p } = await connected();
    const answer = await p.request(peer.publicKeyHex, { message: message('x', { chain: CHAIN_B }).bytes, justification: none });
    expect(answer).toMatchObject({ kind: 'refused', reason: expect.stringContaining('is not one this signer signs for') });
  });

  it('refuses a malformed message without asking the backend', async () => {
    let asked = 0;
    const { peer, p } = await connected({
      backend: {
        sign: async () => {
          asked++;
          return { kind: 'refused', reason: 'backend' };
        },
      },
    });
    const trailing = concatBytes(message('x').bytes, new Uint8Array([0]));
    for (const bytes of [new Uint8Array([1, 2, 3]), trailing]) {
      const answer = await p.request(peer.publicKeyHex, { message: bytes, justification: none });
      expect(answer).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/^malformed message: /) });
    }
    expect(asked).toBe(0);
  });

  it('refuses with a reason when the backend throws', async () => {
    const { peer, p } = await connected({
      backend: {
        sign: async () => {
          throw new Error('disk on fire');
        },
      },
    });
    const answer = await p.request(peer.publicKeyHex, { message: message('x').bytes, justification: none });
    expect(answer).toEqual({ kind: 'refused', reason: 'signer error: disk on fire' });
  });

  it('passes the justification to the backend', async () => {
    let seen: Uint8Array | undefined;
    const { peer, p } = await connected({
      backend: {
        sign: async (_m, j) => {
          seen = j;
          return { kind: 'refused', reason: 'seen' };
        },
      },
    });
    await p.request(peer.publicKeyHex, { message: message('x').bytes, justification: new Uint8Array([7, 8, 9]) });
    expect(seen).toEqual(new Uint8Array([7, 8, 9]));
  });

  it('caps the request rate per connection', async () => {
    const { peer, p } = await connected({ rateLimit: { perSecond: 0.001, burst: 2 } });
    const req = { message: message('rate').bytes, justification: none };
    const answers = await Promise.all([1, 2, 3, 4].map(() => p.request(peer.publicKeyHex, req)));
    expect(answers.map((a) => a.kind)).toEqual(['signature', 'signature', 'refused', 'refused']);
    expect(answers[3]).toEqual({ kind: 'refused', reason: 'rate limited' });
  });

  it('delays answers by answerDelayMs', async () => {
    const { peer, p } = await connected({ answerDelayMs: (m) => (m.payload.length === 4 ? 500 : 0) });
    const answered: string[] = [];
    const started = Date.now();
    const slow = p.request(peer.publicKeyHex, { message: message('slow').bytes, justification: none }).then(() => {
      answered.push('slow');
      return Date.now() - started;
    });
    const quick = p.request(peer.publicKeyHex, { message: message('quick').bytes, justification: none }).then(() => answered.push('quick'));
    // A timer never fires early: the delayed answer took at least its delay.
    expect(await slow).toBeGreaterThanOrEqual(490);
    await quick;
    // The undelayed answer, asked second, is not held behind the delayed one.
    expect(answered).toEqual(['quick', 'slow']);
  });
});

describe('fault modes (devnet and tests only)', () => {
  async function faulty(faults: FaultMode) {
    const env = await connected({ faults });
    const m = message(`fault ${faults}`);
    const result = await env.p
      .request(env.peer.publicKeyHex, { message: m.bytes, justification: none }, { timeoutMs: 400 })
      .catch((e: unknown) => e as PeerRequestError);
    return { ...env, m, result };
  }

  it('invalid-signature: a real signature by the key, over other bytes', async () => {
    const { peer, m, result } = await faulty('invalid-signature');
    expect(result).toMatchObject({ kind: 'signature' });
    if (!('kind' in result) || result.kind !== 'signature') return;
    // Converted to the uncompressed form the service's welcome asked for.
    expect(result.signature).toHaveLength(192);
    expect(verifies(peer.publicKey, m.bytes, result.signature)).toBe(false);
    expect(verifies(peer.publicKey, concatBytes(m.bytes, new Uint8Array([0])), result.signature)).toBe(true);
  });

  it("wrong-key: a valid-looking signature over the message that is not the peer's", async () => {
    const { peer, m, result } = await faulty('wrong-key');
    expect(result).toMatchObject({ kind: 'signature' });
    if (!('kind' in result) || result.kind !== 'signature') return;
    expect(result.signature).toHaveLength(192);
    expect(verifies(peer.publicKey, m.bytes, result.signature)).toBe(false);
  });

  it('silent: never answers, but stays connected', async () => {
    const { peer, p, result } = await faulty('silent');
    expect(result).toBeInstanceOf(PeerRequestError);
    expect((result as PeerRequestError).reason).toBe('timeout');
    expect(p.isConnected(peer.publicKeyHex)).toBe(true);
  });

  it('garbage: answers with an unparseable frame, and the service drops it', async () => {
    const { peer, p, result } = await faulty('garbage');
    expect(result).toBeInstanceOf(PeerRequestError);
    expect((result as PeerRequestError).reason).toBe('disconnected');
    expect(p.isConnected(peer.publicKeyHex)).toBe(false);
  });

  it('disconnect: drops the connection mid-request', async () => {
    const { peer, p, result } = await faulty('disconnect');
    expect(result).toBeInstanceOf(PeerRequestError);
    expect((result as PeerRequestError).reason).toBe('disconnected');
    expect(p.isConnected(peer.publicKeyHex)).toBe(false);
  });

  it('rejects an unknown fault mode', () => {
    expect(() => signer(closer, { faults: 'chaos' as FaultMode })).toThrow(/unknown fault mode 'chaos'/);
  });
});
