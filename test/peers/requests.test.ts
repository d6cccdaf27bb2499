import { afterEach, describe, expect, it } from 'vitest';
import { CloseCode, encodeSignature } from '../../src/peers/frames.js';
import type { PeerPool } from '../../src/peers/pool.js';
import { PeerRequestError } from '../../src/peers/pool.js';
import { bytesToHex, hexToBytes } from '../../src/warp/hex.js';
import { Closer, RawSigner, honestHello, httpServer, message, newKey, once, pool, rawSignerServer, signer, verifies, waitFor } from './helpers.js';

const closer = new Closer();
afterEach(() => closer.closeAll());

const noJustification = new Uint8Array();

async function connectedPool(url: string, opts: Parameters<typeof pool>[1] = {}): Promise<PeerPool> {
  const p = pool(closer, { dial: [{ url }], ...opts });
  const connected = once<[string]>(p, 'connected');
  p.start();
  await connected;
  return p;
}

/** A raw signer endpoint for a fresh key, plus the sockets the pool opens to it. */
async function rawPeer(onFrame: (f: Record<string, unknown>, raw: RawSigner) => void, opts: { autoPong?: boolean } = {}) {
  const k = newKey();
  const hello = honestHello(k.sk);
  const sockets: RawSigner[] = [];
  const { url } = await rawSignerServer(
    closer,
    (raw) => sockets.push(raw),
    (f, raw) => {
      hello(f, raw);
      onFrame(f, raw);
    },
    opts,
  );
  return { ...k, url, sockets };
}

async function rejection(promise: Promise<unknown>): Promise<PeerRequestError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PeerRequestError);
  return err as PeerRequestError;
}

describe('requests', () => {
  it('multiplexes many concurrent requests over one connection and pairs answers by id', async () => {
    // The signer answers after a random delay, so answers come back out of order.
    const peer = signer(closer, { answerDelayMs: () => Math.floor(Math.random() * 40) });
    const { port } = await peer.start();
    const p = await connectedPool(`ws://127.0.0.1:${port}`);
    const messages = Array.from({ length: 60 }, (_, i) => message(`message ${i}`));
    const answers = await Promise.all(messages.map((m) => p.request(peer.publicKeyHex, { message: m.bytes, justification: noJustification })));
    answers.forEach((a, i) => {
      expect(a.kind).toBe('signature');
      if (a.kind === 'signature') expect(verifies(peer.publicKey, messages[i]!.bytes, a.signature)).toBe(true);
    });
    expect(p.stats().inFlight).toBe(0);
  });

  it('keeps at most maxInFlightPerPeer requests outstanding and queues the rest', async () => {
    let outstanding = 0;
    let most = 0;
    const held: Record<string, unknown>[] = [];
    const raw = await rawPeer((f, r) => {
      if (f.type !== 'sign') return;
      outstanding++;
      most = Math.max(most, outstanding);
      held.push(f);
      // Answer in pairs, newest first, once two are waiting.
      if (held.length === 2) {
        for (const h of held.splice(0).reverse()) {
          outstanding--;
          r.send({ v: 1, type: 'refused', id: h.id, reason: `no ${hexToBytes(h.message as string).length}` });
        }
      }
    });
    const p = await connectedPool(raw.url, { maxInFlightPerPeer: 2 });
    const sizes = Array.from({ length: 10 }, (_, i) => i + 1);
    const answers = await Promise.all(sizes.map((n) => p.request(raw.pkHex, { message: new Uint8Array(n), justification: noJustification })));
    expect(answers).toEqual(sizes.map((n) => ({ kind: 'refused', reason: `no ${n}` })));
    expect(most).toBe(2);
  });

  it('fails with overloaded when the queue is full', async () => {
    const raw = await rawPeer(() => {}); // never answers
    const p = await connectedPool(raw.url, { maxInFlightPerPeer: 1, maxQueuedPerPeer: 1 });
    const req = { message: new Uint8Array(1), justification: noJustification };
    const first = p.request(raw.pkHex, req, { timeoutMs: 2_000 }).catch((e: unknown) => e);
    const second = p.request(raw.pkHex, req, { timeoutMs: 2_000 }).catch((e: unknown) => e);
    expect((await rejection(p.request(raw.pkHex, req))).reason).toBe('overloaded');
    expect(p.stats()).toMatchObject({ inFlight: 1, queued: 1 });
    await p.close();
    expect(await first).toMatchObject({ reason: 'closed' });
    expect(await second).toMatchObject({ reason: 'closed' });
  });

  it('times out at the deadline', async () => {
    const raw = await rawPeer(() => {});
    const p = await connectedPool(raw.url);
    const started = Date.now();
    const err = await rejection(p.request(raw.pkHex, { message: message('slow').bytes, justification: noJustification }, { timeoutMs: 300 }));
    const elapsed = Date.now() - started;
    expect(err.reason).toBe('timeout');
    expect(err.publicKey).toBe(raw.pkHex);
    // Not before its own deadline (the reason says it was the deadline, not something else).
    expect(elapsed).toBeGreaterThanOrEqual(290);
    // A late answer to the timed-out request is dropped without harm.
    raw.sockets[0]!.send({ v: 1, type: 'refused', id: 0, reason: 'late' });
    await new Promise((r) => setTimeout(r, 50));
    expect(p.isConnected(raw.pkHex)).toBe(true);
  });

  it('stops waiting when the caller aborts', async () => {
    const raw = await rawPeer(() => {});
    const p = await connectedPool(raw.url);
    const ctl = new AbortController();
    const pending = p.request(raw.pkHex, { message: message('abort').bytes, justification: noJustification }, { signal: ctl.signal });
    setTimeout(() => ctl.abort(), 30);
    expect((await rejection(pending)).reason).toBe('aborted');
    expect(p.stats().inFlight).toBe(0);
    expect((await rejection(p.request(raw.pkHex, { message: new Uint8Array(1), justification: noJustification }, { signal: ctl.signal }))).reason).toBe(
      'aborted',
    );
  });

  it('rejects requests cancelled with a PeerRequestError reason with that very object (no new Error per request)', async () => {
    const raw = await rawPeer(() => {});
    const p = await connectedPool(raw.url);
    const ctl = new AbortController();
    const pending = Array.from({ length: 5 }, (_, i) =>
      p.request(raw.pkHex, { message: message(`shared reason ${i}`).bytes, justification: noJustification }, { signal: ctl.signal }).catch((e: unknown) => e),
    );
    const reason = new PeerRequestError('aborted', '', 'the aggregation no longer needs this signature');
    ctl.abort(reason);
    for (const err of await Promise.all(pending)) expect(err).toBe(reason);
    expect(p.stats().inFlight).toBe(0);
  });

  it('does the same for a caller’s own Error that says aborted in the failure vocabulary (the aggregator’s), and wraps any other reason', async () => {
    const raw = await rawPeer(() => {});
    const p = await connectedPool(raw.url);
    const own = Object.assign(new Error('the aggregation no longer needs this signature'), { reason: 'aborted' });
    const ctl = new AbortController();
    const pending = Array.from({ length: 3 }, (_, i) =>
      p.request(raw.pkHex, { message: message(`own reason ${i}`).bytes, justification: noJustification }, { signal: ctl.signal }).catch((e: unknown) => e),
    );
    ctl.abort(own);
    for (const err of await Promise.all(pending)) expect(err).toBe(own);
    const other = new AbortController();
    const wrapped = p.request(raw.pkHex, { message: message('other reason').bytes, justification: noJustification }, { signal: other.signal }).catch((e: unknown) => e);
    other.abort(new Error('something else'));
    const err = await wrapped;
    expect(err).toBeInstanceOf(PeerRequestError);
    expect((err as PeerRequestError).reason).toBe('aborted');
    expect(p.stats().inFlight).toBe(0);
  });

  describe('ask, the callback form the aggregator uses', () => {
    const req = { message: message('ask').bytes, justification: noJustification };

    it('answers through its callback; a cancelled request frees its slot for the next queued one and its late answer is ignored', async () => {
      const held: Record<string, unknown>[] = [];
      const raw = await rawPeer((f) => {
        if (f.type === 'sign') held.push(f);
      });
      const p = await connectedPool(raw.url, { maxInFlightPerPeer: 1 });
      const heard: string[] = [];
      const first = p.ask(raw.pkHex, req, 5_000, (err, a) => heard.push(`first ${err?.message ?? a?.kind}`));
      let second: { err: Error | undefined; kind: string | undefined } | undefined;
      const secondDone = new Promise<void>((resolve) => {
        p.ask(raw.pkHex, req, 5_000, (err, a) => {
          second = { err, kind: a?.kind };
          resolve();
        });
      });
      await waitFor(() => held.length === 1, 'the first sign frame');
      expect(p.stats()).toMatchObject({ inFlight: 1, queued: 1 });
      first.cancel('cancelled');
      // The slot went to the queued request at once.
      await waitFor(() => held.length === 2, 'the queued sign frame');
      expect(p.stats()).toMatchObject({ inFlight: 1, queued: 0 });
      raw.sockets[0]!.send({ v: 1, type: 'refused', id: held[0]!.id, reason: 'late' });
      raw.sockets[0]!.send({ v: 1, type: 'refused', id: held[1]!.id, reason: 'policy' });
      await secondDone;
      expect(second).toEqual({ err: undefined, kind: 'refused' });
      // Cancelled: never called, not even for its late answer, and the connection stays.
      expect(heard).toEqual([]);
      expect(p.isConnected(raw.pkHex)).toBe(true);
    });

    it('keeps no timer: a request its caller never cancels is dropped as timed out at the heartbeat after its deadline', async () => {
      const raw = await rawPeer(() => {});
      const p = await connectedPool(raw.url, { heartbeatMs: 200 });
      const err = await new Promise<Error | undefined>((resolve) => p.ask(raw.pkHex, req, 50, (e) => resolve(e)));
      expect(err).toBeInstanceOf(PeerRequestError);
      expect((err as PeerRequestError).reason).toBe('timeout');
      expect(p.stats().inFlight).toBe(0);
      expect(p.isConnected(raw.pkHex)).toBe(true);
    });

    it('a request that cannot be sent fails through the callback, after ask returned', async () => {
      const p = pool(closer, {});
      let returned = false;
      const failed = new Promise<Error | undefined>((resolve) =>
        p.ask('ab'.repeat(48), req, 1_000, (err) => {
          expect(returned).toBe(true);
          resolve(err);
        }),
      );
      returned = true;
      expect(((await failed) as PeerRequestError).reason).toBe('not-connected');
    });
  });

  it('fails outstanding requests promptly with disconnected when the peer drops mid-request', async () => {
    const raw = await rawPeer((f, r) => {
      if (f.type === 'sign') r.ws.terminate();
    });
    const p = await connectedPool(raw.url, { reconnect: { minMs: 5_000, maxMs: 5_000 } });
    const disconnected = once<[string]>(p, 'disconnected');
    // 'disconnected', not 'timeout': the request failed when the connection dropped, not at its deadline.
    const err = await rejection(p.request(raw.pkHex, { message: message('drop').bytes, justification: noJustification }, { timeoutMs: 10_000 }));
    expect(err.reason).toBe('disconnected');
    expect((await disconnected)[0]).toBe(raw.pkHex);
    expect(p.isConnected(raw.pkHex)).toBe(false);
  });

  it('refuses to send a request frame over the size limit', async () => {
    const raw = await rawPeer(() => {});
    const p = await connectedPool(raw.url, { maxFrameBytes: 4096 });
    const err = await rejection(p.request(raw.pkHex, { message: new Uint8Array(4090), justification: noJustification }));
    expect(err.reason).toBe('protocol');
    expect(p.isConnected(raw.pkHex)).toBe(true);
  });

  // Frames that close the offending connection, and only that one.
  const badAnswers: [string, (r: RawSigner, id: unknown) => void, number][] = [
    ['an unparseable frame', (r) => r.send('{"v":1,"type":"signature",'), CloseCode.malformed],
    ['an oversized frame', (r, id) => r.send({ v: 1, type: 'refused', id, reason: 'x'.repeat(5000) }), CloseCode.tooBig],
    ['an unknown frame type', (r, id) => r.send({ v: 1, type: 'gossip', id }), CloseCode.unknownType],
    ['a frame of another version', (r, id) => r.send({ v: 2, type: 'refused', id, reason: 'no' }), CloseCode.badVersion],
    ['a binary frame of another version', (r, id) => r.ws.send(Buffer.concat([Buffer.of(2), encodeSignature(id as number, new Uint8Array(96)).subarray(1)])), CloseCode.badVersion],
    ['a signature that is not 96 bytes', (r, id) => r.ws.send(encodeSignature(id as number, new Uint8Array(96)).subarray(0, 105)), CloseCode.malformed],
    ['a signature as JSON', (r, id) => r.send({ v: 1, type: 'signature', id, signature: '00'.repeat(96) }), CloseCode.malformed],
    ['a binary frame cut short', (r) => r.ws.send(Buffer.from([1, 2, 3])), CloseCode.malformed],
    ['a frame only the service sends', (r) => r.send({ v: 1, type: 'challenge', challenge: '00'.repeat(32) }), CloseCode.unexpected],
    ['an answer to an id never sent', (r) => r.send({ v: 1, type: 'refused', id: 99, reason: 'no' }), CloseCode.unexpected],
  ];

  for (const [name, misbehave, code] of badAnswers) {
    it(`closes only the connection that sends ${name}`, async () => {
      const bad = await rawPeer((f, r) => {
        if (f.type === 'sign') misbehave(r, f.id);
      });
      const good = signer(closer);
      const { port } = await good.start();
      const p = pool(closer, { dial: [{ url: bad.url }, { url: `ws://127.0.0.1:${port}` }], maxFrameBytes: 4096, reconnect: { minMs: 5_000, maxMs: 5_000 } });
      p.start();
      await waitFor(() => p.connectedKeys().length === 2, 'both peers');
      const err = await rejection(p.request(bad.pkHex, { message: message('bad').bytes, justification: noJustification }));
      expect(['disconnected', 'protocol']).toContain(err.reason);
      const { code: closedWith } = await bad.sockets[0]!.waitClosed();
      expect(closedWith).toBe(code);
      expect(p.isConnected(bad.pkHex)).toBe(false);
      expect(p.isConnected(good.publicKeyHex)).toBe(true);
      const answer = await p.request(good.publicKeyHex, { message: message('good').bytes, justification: noJustification });
      expect(answer.kind).toBe('signature');
    });
  }

  it('drops a peer that stops answering heartbeats', async () => {
    const raw = await rawPeer(() => {}, { autoPong: false });
    const p = await connectedPool(raw.url, { heartbeatMs: 250, reconnect: { minMs: 5_000, maxMs: 5_000 } });
    const pending = p.request(raw.pkHex, { message: message('dead').bytes, justification: noJustification }, { timeoutMs: 10_000 });
    // The missed heartbeats end the connection, well before the request's own 10 s deadline:
    // the request fails as 'disconnected', not 'timeout'.
    const [key] = await once<[string]>(p, 'disconnected', 8_000);
    expect(key).toBe(raw.pkHex);
    expect((await rejection(pending)).reason).toBe('disconnected');
  });

  it('disconnects a peer past the penalty threshold and refuses it during the cooldown', async () => {
    const k = newKey();
    const hello = honestHello(k.sk);
    const sockets: RawSigner[] = [];
    const { url } = await rawSignerServer(closer, (raw) => sockets.push(raw), hello);
    const p = pool(closer, { dial: [{ url }], penalties: { threshold: 2, windowMs: 60_000, cooldownMs: 60_000 } });
    p.start();
    await waitFor(() => p.isConnected(k.pkHex), 'connection');
    p.penalize(k.pkHex, 'invalid signature');
    expect(p.isConnected(k.pkHex)).toBe(true);
    const disconnected = once<[string]>(p, 'disconnected');
    p.penalize(k.pkHex, 'invalid signature');
    await disconnected;
    const { code, reason } = await sockets[0]!.waitClosed();
    expect(code).toBe(CloseCode.penalized);
    expect(reason).toContain('invalid signature');

    // The same key dialing in is refused while it cools down.
    const { server, port } = await httpServer(closer);
    p.attach(server);
    const again = closer.add(await RawSigner.dial(`ws://127.0.0.1:${port}/v1/peers`, hello), (r) => r.close());
    expect((await again.waitClosed()).code).toBe(CloseCode.penalized);
    // And the pool does not redial that URL until the cooldown is over.
    await new Promise((r) => setTimeout(r, 300));
    expect(sockets).toHaveLength(1);
  });

  it('sends nothing but the challenge before the proof is checked', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const k = newKey();
    const sockets: RawSigner[] = [];
    const { url } = await rawSignerServer(closer, (raw) => sockets.push(raw), honestHello(k.sk));
    const p = pool(closer, {
      dial: [{ url }],
      verifyPossession: async () => {
        await gate;
        return true;
      },
    });
    p.start();
    await waitFor(() => sockets[0]?.frames.length, 'challenge');
    expect((await rejection(p.request(k.pkHex, { message: new Uint8Array(1), justification: noJustification }))).reason).toBe('not-connected');
    await new Promise((r) => setTimeout(r, 50));
    expect(sockets[0]!.frames.map((f) => f.type)).toEqual(['challenge']);
    release();
    await waitFor(() => p.isConnected(k.pkHex), 'connection');
    expect(sockets[0]!.frames.map((f) => f.type)).toEqual(['challenge', 'welcome']);
    expect(bytesToHex(sockets[0]!.challenges[0]!)).toHaveLength(64);
  });
});

describe('large sign frames', () => {
  // A body over the inline size goes as a second fragment of the same WebSocket message and is
  // shared by every connection: it must arrive whole, on connections the service dialed (whose
  // frames ws masks) as on those that dialed in, and masking must never touch the shared bytes.
  it('arrive intact at every signer, dialed or dialing in, for one shared request', async () => {
    const m = message('x'.repeat(20_000));
    const req = { message: m.bytes, justification: Uint8Array.from({ length: 90_000 }, (_, i) => i % 251) };
    const dialed = [signer(closer), signer(closer), signer(closer)];
    const ports = await Promise.all(dialed.map((s) => s.start()));
    const { server, port } = await httpServer(closer);
    const p = pool(closer, { dial: ports.map(({ port: sp }) => ({ url: `ws://127.0.0.1:${sp}` })) });
    p.attach(server);
    const inbound = [signer(closer, { connect: [`ws://127.0.0.1:${port}/v1/peers`] }), signer(closer, { connect: [`ws://127.0.0.1:${port}/v1/peers`] })];
    await Promise.all(inbound.map((s) => s.start()));
    p.start();
    const all = [...dialed, ...inbound];
    await waitFor(() => all.every((s) => p.isConnected(s.publicKeyHex)), 'all five signers connected', 20_000);
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(all.map((s) => p.request(s.publicKeyHex, req)));
      answers.forEach((a, i) => {
        expect(a.kind).toBe('signature');
        if (a.kind === 'signature') expect(verifies(all[i]!.publicKey, m.bytes, a.signature)).toBe(true);
      });
    }
  });
});
