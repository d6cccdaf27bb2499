// limits.headersTimeoutMs and limits.requestTimeoutMs hold as configured against a client that
// trickles its request over a real socket: the server answers 408 and closes the connection once
// the limit has passed (never before), not up to 30 s later when Node's default check comes round.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/config.js';
import { startService, type Service } from '../../src/service/start.js';

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
// Far above the limits, far below Node's default 30 s check: a generous bound, not a timing claim.
const CLOSE_DEADLINE_MS = 15_000;
const TRICKLE_EVERY_MS = 100;

let service: Service;

beforeAll(async () => {
  service = await startService(
    loadConfig({
      env: {},
      overrides: {
        port: 0,
        host: '127.0.0.1',
        'workers.threads': 1,
        'limits.headersTimeoutMs': HEADERS_TIMEOUT_MS,
        'limits.requestTimeoutMs': REQUEST_TIMEOUT_MS,
      },
    }),
    { logger: pino({ level: 'silent' }) },
  );
});
afterAll(async () => {
  await service?.close();
});

interface Trickle {
  /** Milliseconds from just before connecting until the server closed the connection. */
  closedAfterMs: number;
  answer: string;
}

/** Sends `head` and then one of `drip` every TRICKLE_EVERY_MS until the server closes the socket. */
async function trickle(head: string, drip: () => string): Promise<Trickle> {
  const started = Date.now();
  const socket: Socket = connect(service.port, '127.0.0.1');
  await once(socket, 'connect');
  let answer = '';
  socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
  socket.on('error', () => {}); // a write racing the server's close
  const closed = once(socket, 'close').then(() => Date.now() - started);
  socket.write(head);
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write(drip());
  }, TRICKLE_EVERY_MS);
  const deadline = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the server kept the connection open for ${CLOSE_DEADLINE_MS} ms`)), CLOSE_DEADLINE_MS));
  try {
    return { closedAfterMs: await Promise.race([closed, deadline]), answer };
  } finally {
    clearInterval(timer);
    socket.destroy();
  }
}

describe('a client that trickles its request', () => {
  it('headers: 408 and closed once limits.headersTimeoutMs has passed', async () => {
    let n = 0;
    const t = await trickle('GET /health HTTP/1.1\r\nHost: warpgate\r\n', () => `X-Slow-${n++}: a\r\n`);
    expect(t.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(t.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS);
  }, CLOSE_DEADLINE_MS + 5_000);

  it('body: 408 and closed once limits.requestTimeoutMs has passed', async () => {
    const head = 'POST /aggregate-signatures HTTP/1.1\r\nHost: warpgate\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"message":"';
    const t = await trickle(head, () => '00');
    expect(t.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(t.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS);
  }, CLOSE_DEADLINE_MS + 5_000);
});
