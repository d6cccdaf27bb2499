// API keys go only to the APIs they are for: a client's x-glacier-api-key (or x-data-api-key) and
// the configured upstreams.apiKey reach the Data API and the Metrics API, never the node, on
// every path that forwards to it (JSON-RPC, batches, the GET health endpoints).
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { call, rpc, startProxy, startUpstream, type FakeUpstream, type ProxyApp, type UpstreamHandler } from './helpers.js';

const rpcAnswer: UpstreamHandler = (req, res) => {
  res.setHeader('content-type', 'application/json');
  if (req.method === 'GET') return void res.end('{"healthy":true}');
  const body = JSON.parse(req.body) as { id?: unknown } | { id?: unknown }[];
  const answer = (c: { id?: unknown }) => ({ jsonrpc: '2.0', result: {}, id: c.id });
  res.end(JSON.stringify(Array.isArray(body) ? body.map(answer) : answer(body)));
};

let node: FakeUpstream;
let data: FakeUpstream;
let metrics: FakeUpstream;
let app: ProxyApp;

beforeAll(async () => {
  [node, data, metrics] = await Promise.all([startUpstream(rpcAnswer), startUpstream(), startUpstream()]);
  app = await startProxy({ upstreams: { node: node.url, dataApi: data.url, metricsApi: metrics.url, apiKey: 'configured-key' } });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([node, data, metrics].map((u) => u?.close()));
});
beforeEach(() => {
  for (const u of [node, data, metrics]) u.requests.length = 0;
});

const keyHeaders = (h: Record<string, unknown>): string[] => Object.keys(h).filter((k) => /api-key/i.test(k));
const call1 = (id: number) => ({ jsonrpc: '2.0', id, method: 'info.getNetworkID' });

describe('the node upstream never receives an API key', () => {
  test.each([
    ['no client key (the configured one exists)', {}],
    ['a client x-glacier-api-key', { 'x-glacier-api-key': 'client-secret' }],
    ['a client x-data-api-key', { 'x-data-api-key': 'client-secret' }],
  ])('JSON-RPC with %s', async (_name, headers: Record<string, string>) => {
    expect((await rpc(app.url, '/ext/info', call1(1), headers)).status).toBe(200);
    expect((await rpc(app.url, '/ext/bc/C/rpc', { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] }, headers)).status).toBe(200);
    expect((await rpc(app.url, '/ext/info', [call1(3), call1(4)], headers)).status).toBe(200);
    expect((await call(app.url, 'GET', '/ext/health', { headers })).status).toBe(200);
    expect(node.requests).toHaveLength(5);
    for (const seen of node.requests) expect(keyHeaders(seen.headers)).toEqual([]);
  });
});

describe('the Data API and the Metrics API still receive theirs', () => {
  test('the configured key, else the client’s own', async () => {
    await call(app.url, 'GET', '/v1/chains');
    await call(app.url, 'GET', '/v1/avg_tps/43114');
    await call(app.url, 'GET', '/v1/chains/43114/transactions', { headers: { 'x-glacier-api-key': 'client-secret' } });
    expect(data.requests.map((r) => r.headers['x-glacier-api-key'])).toEqual(['configured-key', 'client-secret']);
    expect(metrics.requests.map((r) => r.headers['x-glacier-api-key'])).toEqual(['configured-key']);
  });
});

describe('a key buys no budget on the node, which never checks it', () => {
  let limited: ProxyApp | undefined;
  afterAll(async () => {
    await limited?.close();
  });

  test('node calls with made-up keys count against the client IP’s anonymous budget', async () => {
    limited = await startProxy({ upstreams: { node: node.url, dataApi: data.url }, rateLimit: { requestsPerMinute: 2, keyedRequestsPerMinute: 100 } });
    expect((await rpc(limited.url, '/ext/info', call1(1), { 'x-glacier-api-key': 'invented-1' })).status).toBe(200);
    expect((await rpc(limited.url, '/ext/info', call1(2), { 'x-glacier-api-key': 'invented-2' })).status).toBe(200);
    const refused = await rpc(limited.url, '/ext/info', call1(3), { 'x-glacier-api-key': 'invented-3' });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    // The Data API checks keys, so there a key still has its own budget.
    expect((await call(limited.url, 'GET', '/v1/chains', { headers: { 'x-glacier-api-key': 'real-key' } })).status).toBe(200);
  });
});
