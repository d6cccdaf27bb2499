// Limits an operator relies on: body size (413 in each API's shape), server timeouts, the cap on
// concurrent aggregations (503 with Retry-After), CORS off by default and configurable, and no
// internal detail in an error a client sees.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { once } from 'node:events';
import { pino } from 'pino';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { loadConfig } from '../../src/config/config.js';
import { startService, type Service } from '../../src/service/start.js';
import { CapturedLog, postJson, request, waitFor } from './helpers.js';

const SIGNER_DELAY_MS = 700;
let devnet: Devnet;
let other: Service;
const otherLog = new CapturedLog();

beforeAll(async () => {
  [devnet, other] = await Promise.all([
    startDevnet({
      validators: 4,
      port: 0,
      signerDelayMs: SIGNER_DELAY_MS,
      logger: pino({ level: 'silent' }),
      configOverrides: {
        'workers.threads': 1,
        'aggregation.maxConcurrent': 1,
        'limits.bodyBytes': 2048,
        'limits.headersTimeoutMs': 15_000,
        'limits.requestTimeoutMs': 30_000,
        'limits.keepAliveTimeoutMs': 4_000,
      },
    }),
    startService(
      loadConfig({
        env: {},
        overrides: {
          port: 0,
          host: '127.0.0.1',
          'workers.threads': 1,
          // Never called by these tests; set so the L1 builder below is wired in.
          'upstreams.node': 'http://127.0.0.1:9',
          'cors.origins': ['https://app.example'],
          'limits.keepAliveTimeoutMs': 300,
        },
      }),
      {
        logger: pino({ level: 'info' }, otherLog),
        l1: () => ({
          fromJustification: async () => null,
          fromTransaction: async () => {
            throw new Error('kaboom in /srv/warpgate/secret-module.ts:42');
          },
        }),
      },
    ),
  ]);
});

afterAll(async () => {
  await Promise.allSettled([devnet?.close(), other?.close()]);
});

const glacierPath = '/v1/signatureAggregator/fuji/aggregateSignatures';

describe('request body limit', () => {
  it('answers 413 in the Data API shape on the Glacier endpoint and as {error} on the icm-services one', async () => {
    const big = JSON.stringify({ message: '00'.repeat(2048) });
    const glacier = await postJson(`${devnet.info.url}${glacierPath}`, big);
    expect(glacier.status).toBe(413);
    expect(glacier.body).toEqual({ message: 'request body is larger than the limit', statusCode: 413, error: 'Payload Too Large' });
    const icm = await postJson(`${devnet.info.url}/aggregate-signatures`, big);
    expect(icm.status).toBe(413);
    expect(icm.body).toEqual({ error: 'request body is larger than the limit' });
  });
});

describe('server timeouts', () => {
  it('sets the headers, request and keep-alive timeouts from the config', () => {
    const { server } = devnet.service;
    expect(server.headersTimeout).toBe(15_000);
    expect(server.requestTimeout).toBe(30_000);
    expect(server.keepAliveTimeout).toBe(4_000);
  });

  it('closes an idle keep-alive connection after limits.keepAliveTimeoutMs', async () => {
    const socket = connect(other.port, '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
    socket.write('GET /health HTTP/1.1\r\nHost: warpgate\r\n\r\n');
    await waitFor('the /health answer', () => (answer.includes('"status":"ok"') ? true : undefined), 5_000, 10);
    const idleFrom = Date.now();
    // Closed by the server, not left open: this wait fails the test after 5 s.
    await Promise.race([once(socket, 'close'), new Promise((_, reject) => setTimeout(() => reject(new Error('connection kept open')), 5_000))]);
    const idleMs = Date.now() - idleFrom;
    expect(answer).toMatch(/keep-alive/i);
    // Never before the limit.
    expect(idleMs).toBeGreaterThanOrEqual(250);
  });
});

describe('concurrent aggregation cap', () => {
  it('answers 503 with Retry-After past aggregation.maxConcurrent, while identical requests share the running one', async () => {
    const url = `${devnet.info.url}${glacierPath}`;
    const body = { message: devnet.exampleMessageHex('the one running') };
    let firstAnswered = false;
    const running = postJson(url, body).finally(() => (firstAnswered = true));
    await waitFor('the first aggregation to be in flight', () => (devnet.service.aggregator.active === 1 ? true : undefined), 5_000, 5);
    const same = postJson(url, body);
    const refused = await postJson(url, { message: devnet.exampleMessageHex('one too many') });
    const refusedIcm = await postJson(`${devnet.info.url}/aggregate-signatures`, { message: devnet.exampleMessageHex('one too many, icm') });
    // Refused while the first was still running (its signers alone take SIGNER_DELAY_MS).
    expect(firstAnswered).toBe(false);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toEqual({ message: 'too many aggregations under way (1); retry shortly', statusCode: 503, error: 'Service Unavailable' });
    expect(refusedIcm.status).toBe(503);
    expect(refusedIcm.headers.get('retry-after')).toBe('1');
    expect(refusedIcm.body).toEqual({ error: 'too many aggregations under way (1); retry shortly' });
    const [first, second] = await Promise.all([running, same]);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.signedMessage).toBe(first.body.signedMessage);
    // The slot is free again.
    expect((await postJson(url, { message: devnet.exampleMessageHex('after the cap') })).status).toBe(201);
  });
});

describe('CORS', () => {
  it('is off by default: no CORS headers, no preflight answer', async () => {
    const headers = { origin: 'https://app.example' };
    const get = await request(`${devnet.info.url}/health`, { headers });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await request(`${devnet.info.url}${glacierPath}`, {
      method: 'OPTIONS',
      headers: { ...headers, 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('allows exactly the configured origins when cors.origins is set', async () => {
    const allowed = await request(`${other.url}/health`, { headers: { origin: 'https://app.example' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(allowed.headers.get('vary')).toMatch(/Origin/);
    const stranger = await request(`${other.url}/health`, { headers: { origin: 'https://evil.example' } });
    expect(stranger.status).toBe(200);
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await request(`${other.url}${glacierPath}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/content-type/);
  });
});

describe('errors a client sees', () => {
  it('an unexpected failure is a plain 500 "internal error"; the detail goes to the log only', async () => {
    const res = await request(`${other.url}${glacierPath}/2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM`);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ message: 'internal error', statusCode: 500, error: 'Internal Server Error' });
    const logged = otherLog.records.find((r) => r.msg === 'unexpected error');
    expect(logged?.err?.message).toBe('kaboom in /srv/warpgate/secret-module.ts:42');
  });

  it('malformed JSON is a 400 that names the problem without parser internals', async () => {
    const res = await postJson(`${other.url}${glacierPath}`, '{"message": "00",');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'body: malformed JSON', statusCode: 400, error: 'Bad Request' });
  });
});
