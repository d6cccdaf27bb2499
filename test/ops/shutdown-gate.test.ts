// The HTTP side of graceful shutdown, on a plain server: once shutdown begins, a request on an
// already open keep-alive connection gets 503 with `connection: close`, an in-flight request is
// answered and told to close its connection, and drained() waits for in-flight requests only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { ShutdownGate } from '../../src/server/shutdown-gate.js';
import { waitFor } from './helpers.js';

let server: Server;
let port: number;
const gate = new ShutdownGate();
const held: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer(
    gate.wrap((req, res) => {
      if (req.url === '/hold') held.push(res);
      else res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 }).end('ok');
    }),
  );
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A raw keep-alive connection: send a request, read everything the server writes. */
async function rawConnection(): Promise<{ socket: Socket; received: () => string; send: (path: string) => void }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let data = '';
  socket.setEncoding('utf8').on('data', (d: string) => (data += d));
  return { socket, received: () => data, send: (path) => socket.write(`GET ${path} HTTP/1.1\r\nHost: gate\r\n\r\n`) };
}

describe('ShutdownGate', () => {
  it('refuses requests on open connections after begin(), lets in-flight ones finish, and reports draining', async () => {
    const idle = await rawConnection();
    idle.send('/quick');
    await waitFor('the first answer', () => (idle.received().includes('\r\n\r\nok') ? true : undefined), 5_000, 5);
    expect(idle.received()).toMatch(/connection: keep-alive/i);

    const busy = await rawConnection();
    busy.send('/hold');
    await waitFor('the held request', () => (held.length === 1 ? true : undefined), 5_000, 5);
    expect(gate.inFlight).toBe(1);
    expect(await gate.drained(0)).toBe(false);

    gate.begin();
    expect(gate.shuttingDown).toBe(true);
    const before = idle.received().length;
    const idleClosed = once(idle.socket, 'close');
    idle.send('/quick');
    await idleClosed;
    const refusal = idle.received().slice(before);
    expect(refusal).toMatch(/^HTTP\/1\.1 503 /);
    expect(refusal).toMatch(/connection: close/i);
    expect(refusal).toMatch(/retry-after: 1/i);
    expect(refusal).toContain('"message":"the service is shutting down; retry on another instance","statusCode":503,"error":"Service Unavailable"');

    const drained = gate.drained(5_000);
    const busyClosed = once(busy.socket, 'close');
    held[0]!.writeHead(200, { 'content-type': 'text/plain', 'content-length': 8 }).end('finished');
    expect(await drained).toBe(true);
    await busyClosed;
    expect(busy.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(busy.received()).toMatch(/connection: close/i);
    expect(busy.received()).toContain('finished');
    expect(gate.inFlight).toBe(0);
  });
});
