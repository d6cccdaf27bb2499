// A signer's limits across all its connections (src/signer/limits.ts), over real sockets: the
// request rate and the requests in progress of every connection together, the new connections a
// listening signer accepts (each costs a key proof) overall, per address and at once per address,
// and that nothing is signed on a connection before the service's welcome.
import { afterEach, describe, expect, it } from 'vitest';
import type { PeerPool } from '../../src/peers/pool.js';
import { CloseCode } from '../../src/peers/frames.js';
import type { SignerPeer, SignerPeerOptions } from '../../src/signer/peer.js';
import type { SignOutcome } from '../../src/signer/types.js';
import { Closer, message, once, pool, signer, waitFor } from '../peers/helpers.js';
import { RawService } from './raw-service.js';

const closer = new Closer();
afterEach(() => closer.closeAll());

const none = new Uint8Array();
const NO_LIMIT = { perSecond: 1_000_000, burst: 1_000_000 };

async function listening(opts: Partial<SignerPeerOptions>): Promise<{ peer: SignerPeer; url: string }> {
  const peer = signer(closer, opts);
  const { port } = await peer.start();
  return { peer, url: `ws://127.0.0.1:${port}` };
}

/** A service (its own PeerPool) connected to the signer. */
async function service(url: string): Promise<PeerPool> {
  const p = pool(closer, { dial: [{ url }], reconnect: { minMs: 5_000, maxMs: 5_000 } });
  const up = once(p, 'connected');
  p.start();
  await up;
  return p;
}

async function raw(url: string, localAddress?: string): Promise<RawService> {
  return closer.add(await RawService.dial(url, localAddress), (r) => r.close());
}

/** Opens a connection and sends the challenge: resolves with the hello, or how the signer closed it. */
async function handshake(url: string, localAddress?: string): Promise<{ hello: boolean; code?: number; reason?: string }> {
  const r = await raw(url, localAddress);
  r.challenge();
  if (await r.next('hello')) return { hello: true };
  return { hello: false, code: r.closeCode!, reason: r.closeReason };
}

describe('requests over all connections together', () => {
  it('are rate-limited as a whole, whatever each connection has left', async () => {
    const { peer, url } = await listening({ requestLimits: { rate: { perSecond: 0.001, burst: 2 }, maxConcurrent: 100 } });
    const [a, b] = [await service(url), await service(url)];
    const req = { message: message('shared rate').bytes, justification: none };
    expect((await a.request(peer.publicKeyHex, req)).kind).toBe('signature');
    expect((await a.request(peer.publicKeyHex, req)).kind).toBe('signature');
    // The second service's own connection has sent nothing yet.
    expect(await b.request(peer.publicKeyHex, req)).toEqual({ kind: 'refused', reason: 'rate limited: this signer is answering as many requests as it accepts' });
  });

  it('are decided and signed only so many at once; the rest are refused as busy, not queued', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    const { peer, url } = await listening({
      requestLimits: { rate: NO_LIMIT, maxConcurrent: 1 },
      backend: {
        sign: async (m): Promise<SignOutcome> => {
          asked++;
          if (new TextDecoder().decode(m.payload) === 'slow') await held;
          return { kind: 'refused', reason: 'decided' };
        },
      },
    });
    const [a, b] = [await service(url), await service(url)];
    const slow = a.request(peer.publicKeyHex, { message: message('slow').bytes, justification: none });
    await waitFor(() => asked === 1, 'the slow request to reach the backend');
    expect(await b.request(peer.publicKeyHex, { message: message('other').bytes, justification: none }, { timeoutMs: 3_000 })).toEqual({
      kind: 'refused',
      reason: 'busy: 1 requests in progress on this signer',
    });
    expect(asked).toBe(1);
    release();
    expect(await slow).toEqual({ kind: 'refused', reason: 'decided' });
    // The slot is free again, also after requests refused before reaching the backend.
    for (const bytes of [new Uint8Array([1, 2, 3]), new Uint8Array([4])]) {
      expect(await b.request(peer.publicKeyHex, { message: bytes, justification: none })).toMatchObject({ reason: expect.stringMatching(/^malformed message/) });
    }
    expect(await b.request(peer.publicKeyHex, { message: message('other').bytes, justification: none })).toEqual({ kind: 'refused', reason: 'decided' });
  });
});

describe('new inbound connections, each costing a key proof', () => {
  it('are rate-limited overall: past the burst a connection is closed with 4008 before any proof', async () => {
    const { url } = await listening({
      inboundLimits: { handshakeRate: { perSecond: 0.001, burst: 2 }, handshakeRatePerAddress: NO_LIMIT, maxConnectionsPerAddress: 100 },
    });
    expect(await handshake(url)).toEqual({ hello: true });
    expect(await handshake(url)).toEqual({ hello: true });
    expect(await handshake(url)).toEqual({ hello: false, code: CloseCode.full, reason: 'too many new connections' });
  });

  it('are rate-limited per address, so one address cannot spend every other address its turn', async () => {
    const { url } = await listening({
      inboundLimits: { handshakeRate: { perSecond: 0.001, burst: 3 }, handshakeRatePerAddress: { perSecond: 0.001, burst: 1 }, maxConnectionsPerAddress: 100 },
    });
    expect(await handshake(url, '127.0.0.1')).toEqual({ hello: true });
    for (let i = 0; i < 3; i++) {
      expect(await handshake(url, '127.0.0.1')).toEqual({ hello: false, code: CloseCode.full, reason: 'too many new connections from 127.0.0.1' });
    }
    // Those refusals did not spend the overall budget.
    expect(await handshake(url, '127.0.0.2')).toEqual({ hello: true });
  });

  it('are capped per address while held, and a closed one frees its place', async () => {
    const { url } = await listening({ inboundLimits: { handshakeRate: NO_LIMIT, handshakeRatePerAddress: NO_LIMIT, maxConnectionsPerAddress: 2 } });
    const first = await raw(url);
    const second = await raw(url);
    expect(await handshake(url)).toEqual({ hello: false, code: CloseCode.full, reason: '127.0.0.1 already has 2 connections to this signer' });
    expect(await handshake(url, '127.0.0.2')).toEqual({ hello: true });
    await first.close();
    // The signer notices the close a moment after this side does.
    let again = await handshake(url);
    for (const deadline = Date.now() + 5_000; !again.hello && Date.now() < deadline; again = await handshake(url)) {
      expect(again.reason).toBe('127.0.0.1 already has 2 connections to this signer');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(again).toEqual({ hello: true });
    expect(second.closeCode).toBeUndefined();
  });
});

describe('before the welcome', () => {
  it('a sign frame is a protocol violation (4007): nothing is signed or even decided', async () => {
    let asked = 0;
    const { url } = await listening({
      backend: {
        sign: async (): Promise<SignOutcome> => {
          asked++;
          return { kind: 'refused', reason: 'asked' };
        },
      },
    });
    // Before the challenge.
    const early = await raw(url);
    early.sign(1, message('too early').bytes);
    expect(await early.waitClosed()).toEqual({ code: CloseCode.unexpected, reason: 'sign before welcome' });

    // After our hello, before the service's welcome.
    const unwelcomed = await raw(url);
    unwelcomed.challenge();
    expect(await unwelcomed.next('hello')).toBeDefined();
    unwelcomed.sign(2, message('still too early').bytes);
    expect(await unwelcomed.waitClosed()).toEqual({ code: CloseCode.unexpected, reason: 'sign before welcome' });
    expect(unwelcomed.frames.map((f) => f.type ?? 'binary')).toEqual(['hello']);
    expect(asked).toBe(0);

    // Once welcomed, requests are decided.
    const welcomed = await raw(url);
    welcomed.challenge();
    await welcomed.next('hello');
    welcomed.welcome();
    welcomed.sign(3, message('in time').bytes);
    expect(await welcomed.next('refused')).toMatchObject({ id: 3, reason: 'asked' });
    expect(asked).toBe(1);
  });
});
