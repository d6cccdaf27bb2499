import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { authMessage, AUTH_CONTEXT, PEER_AUTH_DST } from '../../src/peers/auth.js';
import { CloseCode, encodeSign } from '../../src/peers/frames.js';
import { PeerRequestError } from '../../src/peers/pool.js';
import { SIGNATURE_DST } from '../../src/bls/constants.js';
import { bytesToHex } from '../../src/warp/hex.js';
import {
  Closer,
  RawSigner,
  bls,
  honestHello,
  httpServer,
  message,
  newKey,
  once,
  pool,
  proof,
  rawSignerServer,
  signer,
  verifies,
  waitFor,
} from './helpers.js';

const closer = new Closer();
afterEach(() => closer.closeAll());

describe('handshake', () => {
  it('authenticates a signer the service dials, then gets signatures from it', async () => {
    const peer = signer(closer);
    const { port } = await peer.start();
    const p = pool(closer, { dial: [{ url: `ws://127.0.0.1:${port}` }] });
    const connected = once<[string]>(p, 'connected');
    p.start();
    const [key] = await connected;
    expect(key).toBe(peer.publicKeyHex);
    expect(p.isConnected(peer.publicKeyHex)).toBe(true);
    expect(p.connectedKeys()).toEqual([peer.publicKeyHex]);
    expect(p.stats()).toMatchObject({ connected: 1, dialing: 0, inFlight: 0 });

    const msg = message('dialed');
    const answer = await p.request(peer.publicKeyHex, { message: msg.bytes, justification: new Uint8Array() });
    expect(answer.kind).toBe('signature');
    if (answer.kind === 'signature') expect(verifies(peer.publicKey, msg.bytes, answer.signature)).toBe(true);
  });

  it('authenticates a signer that dials the service, on /v1/peers', async () => {
    const { server, port } = await httpServer(closer);
    const p = pool(closer);
    p.attach(server);
    const connected = once<[string]>(p, 'connected');
    const peer = signer(closer, { connect: [`ws://127.0.0.1:${port}/v1/peers`] });
    await peer.start();
    const [key] = await connected;
    expect(key).toBe(peer.publicKeyHex);
    // Upper-case keys find the same connection.
    const msg = message('dialed in');
    const answer = await p.request(peer.publicKeyHex.toUpperCase(), { message: msg.bytes, justification: new Uint8Array([1, 2]) });
    expect(answer.kind).toBe('signature');
    if (answer.kind === 'signature') expect(verifies(peer.publicKey, msg.bytes, answer.signature)).toBe(true);
  });

  it('answers other paths on the attached server with 404 instead of hanging', async () => {
    const { server, port } = await httpServer(closer);
    pool(closer).attach(server);
    const ws = closer.add(new WebSocket(`ws://127.0.0.1:${port}/elsewhere`), (w) => void w.terminate());
    const status = await new Promise<number>((resolve, reject) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', (err) => (err.message.includes('404') ? resolve(404) : reject(err)));
    });
    expect(status).toBe(404);
  });

  // Three ways to present a proof that is not a proof for this key and this challenge.
  const forgeries: [string, (challenge: Uint8Array, wrongChallenge: Uint8Array) => { pk: Uint8Array; proof: Uint8Array }][] = [
    [
      'proves a different key',
      (challenge) => {
        const claimed = newKey();
        const holder = newKey();
        return { pk: claimed.pk, proof: proof(holder.sk, challenge) };
      },
    ],
    [
      'replays a proof made for another challenge',
      (_challenge, wrongChallenge) => {
        const k = newKey();
        return { pk: k.pk, proof: proof(k.sk, wrongChallenge) };
      },
    ],
    [
      'signs the challenge with the Warp DST',
      (challenge) => {
        const k = newKey();
        return { pk: k.pk, proof: bls.sign(k.sk, authMessage(challenge)).bytes };
      },
    ],
    [
      'signs the bare challenge with the Warp DST',
      (challenge) => {
        const k = newKey();
        return { pk: k.pk, proof: bls.sign(k.sk, challenge).bytes };
      },
    ],
  ];

  for (const [name, forge] of forgeries) {
    it(`refuses a peer that ${name}, and never sends it a request`, async () => {
      const { server, port } = await httpServer(closer);
      const p = pool(closer);
      p.attach(server);
      let connectedEvents = 0;
      p.on('connected', () => connectedEvents++);
      let claimed = '';
      const raw = closer.add(
        await RawSigner.dial(`ws://127.0.0.1:${port}/v1/peers`, (frame, r) => {
          if (frame.type !== 'challenge') return;
          const challenge = r.challenges[0]!;
          const { pk, proof: forged } = forge(challenge, new Uint8Array(32).fill(7));
          claimed = bytesToHex(pk);
          r.hello(pk, forged);
        }),
        (r) => r.close(),
      );
      const { code } = await raw.waitClosed();
      expect(code).toBe(CloseCode.authFailed);
      expect(raw.frames.map((f) => f.type)).toEqual(['challenge']);
      expect(connectedEvents).toBe(0);
      expect(p.isConnected(claimed)).toBe(false);
      await expect(p.request(claimed, { message: message('x').bytes, justification: new Uint8Array() })).rejects.toMatchObject({
        reason: 'not-connected',
      });
    });
  }

  it('uses a challenge that differs on every connection, so a recorded proof is useless', async () => {
    const { server, port } = await httpServer(closer);
    const p = pool(closer);
    p.attach(server);
    const k = newKey();
    const first = closer.add(await RawSigner.dial(`ws://127.0.0.1:${port}/v1/peers`, honestHello(k.sk)), (r) => r.close());
    await waitFor(() => first.frames.some((f) => f.type === 'welcome'), 'welcome');
    const recorded = proof(k.sk, first.challenges[0]!);
    await first.close();
    await waitFor(() => !p.isConnected(k.pkHex), 'first connection gone');

    const second = closer.add(
      await RawSigner.dial(`ws://127.0.0.1:${port}/v1/peers`, (frame, r) => {
        if (frame.type === 'challenge') r.hello(k.pk, recorded);
      }),
      (r) => r.close(),
    );
    const { code } = await second.waitClosed();
    expect(bytesToHex(second.challenges[0]!)).not.toBe(bytesToHex(first.challenges[0]!));
    expect(code).toBe(CloseCode.authFailed);
  });

  it('binds the proof to our own DST and context', () => {
    expect(PEER_AUTH_DST).not.toBe(SIGNATURE_DST);
    expect(new TextDecoder().decode(AUTH_CONTEXT)).toBe('warpgate-peer-auth/v1');
    const k = newKey();
    const challenge = new Uint8Array(32).fill(1);
    const handshakeProof = proof(k.sk, challenge);
    // The proof is not a Warp signature over the same bytes, nor over the challenge.
    expect(verifies(k.pk, authMessage(challenge), handshakeProof)).toBe(false);
    expect(verifies(k.pk, challenge, handshakeProof)).toBe(false);
  });

  it('closes a connection that dialed in and never says hello at the hello deadline, well before the handshake deadline', async () => {
    const { server, port } = await httpServer(closer);
    // The whole-handshake deadline (dialed signers, the upgrade) is a minute; a signer that
    // dialed in has 200 ms to say hello.
    const p = pool(closer, { handshakeTimeoutMs: 60_000, helloTimeoutMs: 200 });
    p.attach(server);
    const raw = closer.add(await RawSigner.dial(`ws://127.0.0.1:${port}/v1/peers`), (r) => r.close());
    const { code, reason } = await raw.waitClosed(10_000);
    expect(code).toBe(CloseCode.handshakeTimeout);
    expect(reason).toBe('no valid hello within 200 ms');
    expect(p.stats().pendingHandshakes).toBe(0);
  });

  it('refuses a second connection for a key that is already connected and keeps the first', async () => {
    const { server, port } = await httpServer(closer);
    const p = pool(closer);
    p.attach(server);
    const k = newKey();
    const first = closer.add(await RawSigner.dial(`ws://127.0.0.1:${port}/v1/peers`, honestHello(k.sk)), (r) => r.close());
    await waitFor(() => p.isConnected(k.pkHex), 'first connection');
    const second = closer.add(await RawSigner.dial(`ws://127.0.0.1:${port}/v1/peers`, honestHello(k.sk)), (r) => r.close());
    const { code } = await second.waitClosed();
    expect(code).toBe(CloseCode.duplicate);
    expect(p.isConnected(k.pkHex)).toBe(true);
    expect(first.closeCode).toBeUndefined();
  });

  it('does not let a signer request anything before it has been welcomed (the signer checks too)', async () => {
    // A "service" that sends a sign frame right after the challenge, before any welcome.
    const k = newKey();
    const peer = signer(closer, { sk: k.sk });
    const { port } = await peer.start();
    const raw = closer.add(await RawSigner.dial(`ws://127.0.0.1:${port}`), (r) => r.close());
    raw.send({ v: 1, type: 'challenge', challenge: '11'.repeat(32) });
    await waitFor(() => raw.frames.some((f) => f.type === 'hello'), 'hello');
    raw.ws.send(encodeSign(0, message('early').bytes, new Uint8Array()));
    const { code } = await raw.waitClosed();
    expect(code).toBe(CloseCode.unexpected);
    expect(raw.frames.map((f) => f.type)).toEqual(['hello']);
  });

  it('rejects requests for keys without a connection as not-connected', async () => {
    const p = pool(closer);
    const err = await p.request('ab'.repeat(48), { message: message('x').bytes, justification: new Uint8Array() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PeerRequestError);
    expect((err as PeerRequestError).reason).toBe('not-connected');
  });

  it('closes with an internal error, not a welcome, when the proof verifier fails to run', async () => {
    const accepted: RawSigner[] = [];
    const { url } = await rawSignerServer(closer, (raw) => accepted.push(raw), honestHello(newKey().sk));
    const p = pool(closer, {
      dial: [{ url }],
      verifyPossession: async () => {
        throw new Error('worker pool gone');
      },
      reconnect: { minMs: 5_000, maxMs: 5_000 },
    });
    p.start();
    const raw = await waitFor(() => accepted[0], 'the pool to dial');
    const { code } = await raw.waitClosed();
    expect(code).toBe(CloseCode.internalError);
    expect(raw.frames.map((f) => f.type)).toEqual(['challenge']);
    expect(p.stats()).toMatchObject({ connected: 0, dialing: 1 });
  });
});
