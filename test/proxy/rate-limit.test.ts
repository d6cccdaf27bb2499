// Budgets per API key or client IP: the 429 each API answers with (the token bucket itself: test/util/rate-limit.test.ts).
import { afterEach, describe, expect, test } from 'vitest';
import { call, rpc, startProxy, startUpstream, type FakeUpstream, type ProxyApp } from './helpers.js';

describe('the router’s budgets', () => {
  let up: FakeUpstream;
  let app: ProxyApp | undefined;
  afterEach(async () => {
    await app?.close();
    await up?.close();
    app = undefined;
  });

  async function setup(rateLimit: { requestsPerMinute?: number; keyedRequestsPerMinute?: number }): Promise<ProxyApp> {
    up = await startUpstream();
    app = await startProxy({ upstreams: { dataApi: up.url, metricsApi: up.url, node: up.url }, rateLimit, cacheTtlMs: 0 });
    return app;
  }

  test('anonymous requests: 429 with Retry-After in the Data API shape once the IP’s budget is spent', async () => {
    const a = await setup({ requestsPerMinute: 3 });
    for (let i = 0; i < 3; i++) expect((await call(a.url, 'GET', '/v1/chains')).status).toBe(200);
    const refused = await call(a.url, 'GET', '/v1/chains');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBe(20);
    expect(refused.json()).toEqual({ message: 'rate limit exceeded; retry in 20 s', statusCode: 429, error: 'Too Many Requests' });
    expect(up.requests).toHaveLength(3);
  });

  test('the Metrics API and JSON-RPC answer 429 in their own shapes', async () => {
    const a = await setup({ requestsPerMinute: 1 });
    await call(a.url, 'GET', '/v1/chains');
    const metrics = await call(a.url, 'GET', '/v1/avg_tps/43114');
    expect(metrics.status).toBe(429);
    expect(metrics.json()).toEqual({ message: [expect.stringContaining('rate limit exceeded')], statusCode: 429, error: 'Too Many Requests' });
    const node = await rpc(a.url, '/ext/info', { jsonrpc: '2.0', id: 1, method: 'info.getNetworkID' });
    expect(node.status).toBe(429);
    expect(node.headers['retry-after']).toBeDefined();
    expect(node.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('rate limit exceeded'), data: null }, id: null });
    const geth = await rpc(a.url, '/ext/bc/C/rpc', { jsonrpc: '2.0', id: 1, method: 'eth_chainId' });
    expect(geth.json().error.code).toBe(-32005);
  });

  test('rejected requests count too (no free validation flood)', async () => {
    const a = await setup({ requestsPerMinute: 2 });
    await call(a.url, 'GET', '/v1/chains?network=bad');
    await call(a.url, 'GET', '/v1/chains?network=bad');
    expect((await call(a.url, 'GET', '/v1/chains')).status).toBe(429);
  });

  test('a key has its own, larger budget; inventing keys gains no more than the keyed rate per IP', async () => {
    const a = await setup({ requestsPerMinute: 1, keyedRequestsPerMinute: 4 });
    expect((await call(a.url, 'GET', '/v1/chains')).status).toBe(200);
    expect((await call(a.url, 'GET', '/v1/chains')).status).toBe(429);
    for (let i = 0; i < 4; i++) expect((await call(a.url, 'GET', '/v1/chains', { headers: { 'x-glacier-api-key': `key-${i}` } })).status).toBe(200);
    expect((await call(a.url, 'GET', '/v1/chains', { headers: { 'x-data-api-key': 'key-new' } })).status).toBe(429);
  });

  test('a batch costs one request per call', async () => {
    const a = await setup({ requestsPerMinute: 3 });
    const call1 = (id: number) => ({ jsonrpc: '2.0', id, method: 'info.getNetworkID' });
    expect((await rpc(a.url, '/ext/info', [call1(1), call1(2), call1(3)])).status).toBe(200);
    expect((await rpc(a.url, '/ext/info', call1(4))).status).toBe(429);
  });

  test('no rateLimit option: no limit', async () => {
    const a = await setup({});
    for (let i = 0; i < 20; i++) expect((await call(a.url, 'GET', '/v1/chains')).status).toBe(200);
  });
});
