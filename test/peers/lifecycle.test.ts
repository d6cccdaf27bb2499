import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tsExecArgv } from '../../src/util/ts-runtime.js';
import { Closer, RawSigner, bls, closeServer, honestHello, httpServer, message, once, pool, rawSignerServer, signer, waitFor } from './helpers.js';

const closer = new Closer();
afterEach(() => closer.closeAll());

describe('connection lifecycle', () => {
  it('redials a signer after it restarts on the same port', async () => {
    const sk = bls.generateSecretKey();
    const first = signer(closer, { sk });
    const { port } = await first.start();
    const p = pool(closer, { dial: [{ url: `ws://127.0.0.1:${port}` }] });
    p.start();
    await once(p, 'connected');
    const disconnected = once<[string]>(p, 'disconnected');
    await first.close();
    await disconnected;
    expect(p.stats()).toMatchObject({ connected: 0, dialing: 1 });

    const second = signer(closer, { sk, listen: { port: port! } });
    const reconnected = once<[string]>(p, 'connected');
    await second.start();
    expect((await reconnected)[0]).toBe(second.publicKeyHex);
    const answer = await p.request(second.publicKeyHex, { message: message('again').bytes, justification: new Uint8Array() });
    expect(answer.kind).toBe('signature');
  });

  it('counts any key as being connected while a first dial to a configured signer is under way, and none after', async () => {
    const peer = signer(closer);
    const { port } = await peer.start();
    const other = signer(closer).publicKeyHex;
    const p = pool(closer, { dial: [{ url: `ws://127.0.0.1:${port}` }] });
    // Not started: nothing is being dialled.
    expect(p.connecting(peer.publicKeyHex)).toBe(false);
    const connected = once<[string]>(p, 'connected');
    p.start();
    // The signer's key is unknown until it connects: an aggregation may wait for any key meanwhile.
    expect(p.connecting(peer.publicKeyHex)).toBe(true);
    expect(p.connecting(other)).toBe(true);
    await connected;
    expect(p.connecting(peer.publicKeyHex)).toBe(false);
    expect(p.connecting(other)).toBe(false);
  });

  it('a signer redials the service after the service restarts', async () => {
    const { server, port } = await httpServer(closer);
    const p1 = pool(closer);
    p1.attach(server);
    const peer = signer(closer, { connect: [`ws://127.0.0.1:${port}/v1/peers`] });
    const connected = once(p1, 'connected');
    await peer.start();
    await connected;
    await p1.close();
    await closeServer(server);

    const { server: server2 } = await httpServer(closer, port);
    const p2 = pool(closer);
    p2.attach(server2);
    const [key] = await once<[string]>(p2, 'connected');
    expect(key).toBe(peer.publicKeyHex);
  });

  it('close() fails outstanding requests, stops redialing and refuses new work', async () => {
    const accepted: RawSigner[] = [];
    const sk = bls.generateSecretKey();
    const { url } = await rawSignerServer(closer, (raw) => accepted.push(raw), honestHello(sk));
    const p = pool(closer, { dial: [{ url }], reconnect: { minMs: 10, maxMs: 20 } });
    p.start();
    await once(p, 'connected');
    const key = p.connectedKeys()[0]!;
    const pending = p.request(key, { message: message('pending').bytes, justification: new Uint8Array() }, { timeoutMs: 10_000 }).catch((e: unknown) => e);
    await p.close();
    expect(await pending).toMatchObject({ reason: 'closed' });
    expect((await accepted[0]!.waitClosed()).code).toBe(1001);
    await new Promise((r) => setTimeout(r, 200));
    expect(accepted).toHaveLength(1);
    expect(p.stats()).toEqual({ connected: 0, inbound: 0, pendingHandshakes: 0, dialing: 0, inFlight: 0, queued: 0 });
    await expect(p.request(key, { message: new Uint8Array(1), justification: new Uint8Array() })).rejects.toMatchObject({ reason: 'closed' });
    expect(() => p.start()).toThrow(/closed/);
  });

  it('dials configured signers dialConcurrency at a time, the next as a handshake settles', async () => {
    // Signers that accept the connection but never answer the challenge: each first dial stays
    // under way until its handshake deadline.
    const silent = await Promise.all(Array.from({ length: 5 }, () => httpServer(closer)));
    let upgrades = 0;
    const sockets: import('node:stream').Duplex[] = [];
    for (const { server } of silent) {
      server.on('upgrade', (_req, socket) => {
        upgrades++;
        sockets.push(socket);
      });
    }
    const p = pool(closer, { dial: silent.map(({ port }) => ({ url: `ws://127.0.0.1:${port}` })), dialConcurrency: 2, handshakeTimeoutMs: 600 });
    p.start();
    await waitFor(() => upgrades >= 2, 'the first two dials');
    await new Promise((r) => setTimeout(r, 200));
    expect(upgrades).toBe(2);
    // When their deadlines pass, the next signers are dialed.
    await waitFor(() => upgrades >= 4, 'the next two dials', 3_000);
    await p.close();
    for (const socket of sockets) socket.destroy();
  });

  it('a closed signer stops redialing the service', async () => {
    const { server, port } = await httpServer(closer);
    let upgrades = 0;
    server.on('upgrade', (_req, socket) => {
      upgrades++;
      socket.destroy();
    });
    const peer = signer(closer, { connect: [`ws://127.0.0.1:${port}/v1/peers`] });
    await peer.start();
    await waitFor(() => upgrades >= 2, 'a few dial attempts');
    await peer.close();
    // An upgrade request already on the wire when close() ran may still reach the server.
    await new Promise((r) => setTimeout(r, 100));
    const seen = upgrades;
    await new Promise((r) => setTimeout(r, 400));
    expect(upgrades).toBe(seen);
  });

  it('leaves no handles behind: a process that used a pool and signers exits on its own', async () => {
    const script = fileURLToPath(new URL('./fixtures/lifecycle-script.ts', import.meta.url));
    const child = spawn(process.execPath, [...tsExecArgv(), script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    clearTimeout(timer);
    expect(err).toBe('');
    expect(out.trim()).toBe('signed in both directions; closed');
    expect(code).toBe(0);
  });
});
