// The peer path is open to anyone (issue 12): what a stranger can and cannot do to it. Keys that
// are not admitted are refused before any proof check; connections that never authenticate are
// capped per address and in all, must say hello quickly, and are rate-limited per address; the
// refusals' log lines are bounded; and signers the service dials never compete with those that
// dial in. Real WebSockets on loopback; other client addresses are other 127.x.y.z addresses.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { defaultVerifyPossession, type VerifyPossession } from '../../src/peers/auth.js';
import { PeerAdmission } from '../../src/peers/admission.js';
import { Dialer } from '../../src/peers/dialer.js';
import { CloseCode } from '../../src/peers/frames.js';
import type { PeerLogger } from '../../src/peers/logger.js';
import { Closer, RawSigner, honestHello, httpServer, newKey, once, pool, signer, waitFor } from './helpers.js';

const closer = new Closer();
afterEach(() => closer.closeAll());

/** The default verifier, counting its calls. */
function countingVerifier(): { verify: VerifyPossession; calls: () => number } {
  let calls = 0;
  return {
    verify: (pk, msg, proof) => {
      calls++;
      return defaultVerifyPossession(pk, msg, proof);
    },
    calls: () => calls,
  };
}

/** A validator set holding exactly these keys. */
function setOf(keys: string[]): { indexOf(k: string): number | undefined } {
  return { indexOf: (k) => (keys.includes(k) ? keys.indexOf(k) : undefined) };
}

/** Opens a WebSocket to the peer path from `localAddress` and resolves with the HTTP status when the upgrade is refused. */
function refusedStatus(url: string, localAddress = '127.0.0.1'): Promise<{ status: number; retryAfter: string | undefined }> {
  const ws = closer.add(new WebSocket(url, { localAddress, perMessageDeflate: false }), (w) => void w.terminate());
  return new Promise((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined }));
    ws.on('open', () => reject(new Error('the connection was accepted')));
    ws.on('error', () => {});
  });
}

/** A connection from `localAddress` that is accepted and then says nothing. */
async function idle(url: string, localAddress = '127.0.0.1'): Promise<RawSigner> {
  return closer.add(await RawSigner.dial(url, undefined, { localAddress }), (r) => r.close());
}

function capturingLogger(): PeerLogger & { warnings: { fields: Record<string, unknown>; msg: string | undefined }[] } {
  const warnings: { fields: Record<string, unknown>; msg: string | undefined }[] = [];
  return { warnings, info() {}, warn: (fields, msg) => void warnings.push({ fields: fields as Record<string, unknown>, msg }) };
}

describe('peer admission', () => {
  it('refuses keys of no tracked validator set before any proof check, and welcomes a validator', async () => {
    const validator = newKey();
    const admission = new PeerAdmission({ mode: 'validators', maxSets: 8 });
    admission.observe(new Uint8Array(32), 0, setOf([validator.pkHex]));
    const verifier = countingVerifier();
    const { server, port } = await httpServer(closer);
    const p = pool(closer, { verifyPossession: verifier.verify, admitInbound: (k) => admission.check(k), maxPendingPerIp: 64 });
    p.attach(server);
    const url = `ws://127.0.0.1:${port}/v1/peers`;

    // 40 strangers, each with a fresh key and a valid proof for it.
    const strangers = await Promise.all(Array.from({ length: 40 }, () => RawSigner.dial(url, honestHello(newKey().sk))));
    strangers.forEach((s) => closer.add(s, (r) => r.close()));
    const closes = await Promise.all(strangers.map((s) => s.waitClosed(10_000)));
    for (const c of closes) expect(c).toEqual({ code: CloseCode.notAdmitted, reason: 'not a validator of any subnet this service tracks, nor an allowed key' });
    expect(verifier.calls()).toBe(0);
    expect(p.connectedKeys()).toEqual([]);

    const real = closer.add(await RawSigner.dial(url, honestHello(validator.sk)), (r) => r.close());
    await waitFor(() => real.frames.some((f) => f.type === 'welcome'), 'the validator welcomed');
    expect(p.connectedKeys()).toEqual([validator.pkHex]);
    expect(verifier.calls()).toBe(1);
  });

  it('says why when no validator set is known yet, and admits allowed keys regardless', async () => {
    const allowed = newKey();
    const admission = new PeerAdmission({ mode: 'validators', allowedKeys: [`0x${allowed.pkHex.toUpperCase()}`], maxSets: 8 });
    const { server, port } = await httpServer(closer);
    const p = pool(closer, { admitInbound: (k) => admission.check(k) });
    p.attach(server);
    const url = `ws://127.0.0.1:${port}/v1/peers`;
    const early = closer.add(await RawSigner.dial(url, honestHello(newKey().sk)), (r) => r.close());
    expect(await early.waitClosed()).toEqual({ code: CloseCode.notAdmitted, reason: 'no validator set is known yet; retry later' });
    const ok = closer.add(await RawSigner.dial(url, honestHello(allowed.sk)), (r) => r.close());
    await waitFor(() => ok.frames.some((f) => f.type === 'welcome'), 'the allowed key welcomed');
    expect(p.isConnected(allowed.pkHex)).toBe(true);
  });
});

describe('connections that never authenticate', () => {
  it('are capped per address: past the cap refused with 429, while a signer from another address connects', async () => {
    const { server, port } = await httpServer(closer);
    const p = pool(closer, { maxPendingPerIp: 4, helloTimeoutMs: 60_000 });
    p.attach(server);
    const url = `ws://127.0.0.1:${port}/v1/peers`;
    const held = await Promise.all(Array.from({ length: 4 }, () => idle(url)));
    expect(p.stats().pendingHandshakes).toBe(4);
    for (let i = 0; i < 3; i++) expect((await refusedStatus(url)).status).toBe(429);
    expect(held.every((h) => h.closeCode === undefined)).toBe(true);

    const real = newKey();
    const raw = closer.add(await RawSigner.dial(url, honestHello(real.sk), { localAddress: '127.0.0.2' }), (r) => r.close());
    await waitFor(() => raw.frames.some((f) => f.type === 'welcome'), 'the real signer welcomed');
    expect(p.isConnected(real.pkHex)).toBe(true);
    // Its slot was freed when it authenticated; the idle ones still hold theirs.
    expect(p.stats().pendingHandshakes).toBe(4);
  });

  it('are capped in all (503), and free their slots when they close', async () => {
    const { server, port } = await httpServer(closer);
    const p = pool(closer, { maxPendingHandshakes: 3, helloTimeoutMs: 60_000 });
    p.attach(server);
    const url = `ws://127.0.0.1:${port}/v1/peers`;
    const held = [await idle(url, '127.0.0.3'), await idle(url, '127.0.0.4'), await idle(url, '127.0.0.5')];
    expect((await refusedStatus(url, '127.0.0.6')).status).toBe(503);
    await held[0]!.close();
    await waitFor(() => p.stats().pendingHandshakes === 2, 'the closed connection to free its slot');
    await idle(url, '127.0.0.6');
  });

  it('are rate-limited per address: past handshakesPerMinutePerIp a 429 with Retry-After, other addresses unaffected', async () => {
    const { server, port } = await httpServer(closer);
    const p = pool(closer, { handshakesPerMinutePerIp: 5 });
    p.attach(server);
    const url = `ws://127.0.0.1:${port}/v1/peers`;
    // Opened and closed at once, so the pending cap is never what refuses them.
    for (let i = 0; i < 5; i++) await (await idle(url, '127.0.0.7')).close();
    const refused = await refusedStatus(url, '127.0.0.7');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    const other = newKey();
    const raw = closer.add(await RawSigner.dial(url, honestHello(other.sk), { localAddress: '127.0.0.8' }), (r) => r.close());
    await waitFor(() => raw.frames.some((f) => f.type === 'welcome'), 'a signer from another address welcomed');
  });

  it('log a bounded number of lines however many are refused, and the summary counts the rest', async () => {
    const logger = capturingLogger();
    const { server, port } = await httpServer(closer);
    const p = pool(closer, { maxPendingHandshakes: 1, helloTimeoutMs: 60_000, logger, logLimit: { max: 3, intervalMs: 60_000 } });
    p.attach(server);
    const url = `ws://127.0.0.1:${port}/v1/peers`;
    await idle(url);
    const refusals = 60;
    for (let i = 0; i < refusals; i++) expect((await refusedStatus(url, `127.0.1.${i + 1}`)).status).toBe(503);
    const refusalLines = () => logger.warnings.filter((w) => w.msg === 'refusing a peer connection');
    expect(refusalLines()).toHaveLength(3);
    await p.close();
    const summary = logger.warnings.find((w) => w.msg === 'suppressed repeated peer log lines' && w.fields.kind === 'refused: pending');
    expect(summary?.fields.suppressed).toBe(refusals - 3);
  });
});

describe('signers the service dials', () => {
  it('connect while the signers that dialed in are at their cap', async () => {
    const { server, port } = await httpServer(closer);
    const dialed = signer(closer);
    const { port: dialedPort } = await dialed.start();
    const p = pool(closer, { dial: [{ url: `ws://127.0.0.1:${dialedPort}` }], maxInboundPeers: 2 });
    p.attach(server);
    const url = `ws://127.0.0.1:${port}/v1/peers`;
    // Two signers dial in and fill the inbound cap; a third is refused.
    for (const k of [newKey(), newKey()]) {
      const raw = closer.add(await RawSigner.dial(url, honestHello(k.sk)), (r) => r.close());
      await waitFor(() => raw.frames.some((f) => f.type === 'welcome'), 'an inbound signer welcomed');
    }
    expect((await refusedStatus(url)).status).toBe(503);
    expect(p.stats()).toMatchObject({ inbound: 2, connected: 2 });

    const up = once<[string]>(p, 'connected', 15_000);
    p.start();
    expect((await up)[0]).toBe(dialed.publicKeyHex);
    expect(p.stats()).toMatchObject({ inbound: 2, connected: 3 });
  });

  it('connect while strangers hold every pending handshake slot', async () => {
    const { server, port } = await httpServer(closer);
    const dialed = signer(closer);
    const { port: dialedPort } = await dialed.start();
    const p = pool(closer, { dial: [{ url: `ws://127.0.0.1:${dialedPort}` }], maxPendingHandshakes: 2, helloTimeoutMs: 60_000 });
    p.attach(server);
    const url = `ws://127.0.0.1:${port}/v1/peers`;
    await idle(url);
    await idle(url);
    expect((await refusedStatus(url, '127.0.0.9')).status).toBe(503);
    const up = once<[string]>(p, 'connected', 15_000);
    p.start();
    expect((await up)[0]).toBe(dialed.publicKeyHex);
  });
});

describe('a signer dialing a service that refuses it', () => {
  it("waits at least the refusal's Retry-After before dialing again", async () => {
    const { server, port } = await httpServer(closer);
    let upgrades = 0;
    server.on('upgrade', (_req, socket) => {
      upgrades++;
      socket.end('HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    });
    const waits: number[] = [];
    const dialer = new Dialer({
      url: `ws://127.0.0.1:${port}/v1/peers`,
      reconnect: { minMs: 10, maxMs: 20 },
      maxFrameBytes: 1024,
      handshakeTimeoutMs: 5_000,
      onOpen: () => {},
      logger: { info() {}, warn() {}, debug: (fields) => void ('retryInMs' in fields && waits.push((fields as { retryInMs: number }).retryInMs)) },
    });
    closer.add(dialer, (d) => d.stop());
    dialer.start();
    await waitFor(() => waits.length > 0, 'the dialer to schedule its next attempt');
    expect(upgrades).toBe(1);
    expect(waits[0]).toBeGreaterThanOrEqual(7_000);
    expect(dialer.state).toBe('waiting');
  });
});
