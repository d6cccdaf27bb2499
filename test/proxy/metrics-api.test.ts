// Metrics API read endpoints (seed 001 sections 4.1-4.2): forwarding and the rules, whose
// violations come back as a list in `message`.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { ADDR, C_CHAIN } from './fixtures.js';
import { call, echoJson, startProxy, startUpstream, type FakeUpstream, type ProxyApp } from './helpers.js';

let up: FakeUpstream;
let app: ProxyApp;

beforeAll(async () => {
  up = await startUpstream();
  app = await startProxy({ upstreams: { metricsApi: up.url, apiKey: 'configured-key' }, cacheTtlMs: 0 });
});
afterAll(async () => {
  await app?.close();
  await up?.close();
});
beforeEach(() => {
  up.requests.length = 0;
  up.handle = echoJson;
});

describe('forwarding', () => {
  test.each([
    ['4.1 by EVM chain id', '/v1/avg_tps/43114?pageToken=abc'],
    ['4.1 by blockchain id', `/v1/avg_tps/${C_CHAIN}`],
    ['4.2 every parameter at a boundary', `/v2/chains/43114/contracts/${ADDR}/balances?threshold=1000&startTimestamp=0&endTimestamp=1700000000&pageSize=5000&pageToken=t`],
    ['4.2 smallest page, fractional threshold', `/v2/chains/1/contracts/${ADDR}/balances?threshold=0.5&pageSize=1`],
  ])('%s', async (_name, path) => {
    const a = await call(app.url, 'GET', path, { headers: { 'content-type': 'application/json' } });
    expect(a.status).toBe(200);
    expect(a.json()).toEqual({ echoed: path });
    const seen = up.requests[0]!;
    expect(seen.url).toBe(path);
    expect(seen.method).toBe('GET');
    // Seed 001 section 4.1: the Content-Type header is part of the request.
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers['x-glacier-api-key']).toBe('configured-key');
  });
});

describe('rules checked before forwarding', () => {
  test.each([
    ['/v1/avg_tps/zero', 'chainId'],
    [`/v2/chains/${C_CHAIN}/contracts/${ADDR}/balances?threshold=1`, 'chainId'],
    ['/v2/chains/43114/contracts/0xabc/balances?threshold=1', 'address'],
    [`/v2/chains/43114/contracts/${ADDR}/balances`, 'threshold'],
    [`/v2/chains/43114/contracts/${ADDR}/balances?threshold=`, 'threshold'],
    [`/v2/chains/43114/contracts/${ADDR}/balances?threshold=lots`, 'threshold'],
    [`/v2/chains/43114/contracts/${ADDR}/balances?threshold=1&startTimestamp=-1`, 'startTimestamp'],
    [`/v2/chains/43114/contracts/${ADDR}/balances?threshold=1&endTimestamp=1.5`, 'endTimestamp'],
    [`/v2/chains/43114/contracts/${ADDR}/balances?threshold=1&pageSize=0`, 'pageSize'],
    [`/v2/chains/43114/contracts/${ADDR}/balances?threshold=1&pageSize=5001`, 'pageSize'],
  ])('%s → 400 naming %s', async (path, param) => {
    const a = await call(app.url, 'GET', path);
    expect(a.status).toBe(400);
    const body = a.json();
    expect(body).toEqual({ message: [expect.stringContaining(param)], statusCode: 400, error: 'Bad Request' });
    expect(up.requests).toHaveLength(0);
  });

  test('every violation is its own entry of message[]', async () => {
    const a = await call(app.url, 'GET', '/v2/chains/x/contracts/0x1/balances?pageSize=0');
    expect(a.status).toBe(400);
    expect(a.json().message).toEqual([
      'chainId must be an EVM chain id in decimal',
      'address must be an EVM address (0x followed by 40 hex digits)',
      'threshold is required',
      'pageSize must be an integer from 1 to 5000',
    ]);
  });
});
