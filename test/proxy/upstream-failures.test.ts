// How upstream trouble reaches a client, in each API's own error shape: unconfigured and
// unreachable 503, timeout 504, invalid answers 502, and upstream errors passed through as sent.
import { afterEach, describe, expect, test } from 'vitest';
import { ADDR } from './fixtures.js';
import { call, closedPortUrl, jsonAnswer, rpc, startProxy, startUpstream, type FakeUpstream, type ProxyApp } from './helpers.js';

const DATA = '/v1/chains/43114/transactions';
const METRICS = `/v2/chains/43114/contracts/${ADDR}/balances?threshold=1`;
const CALL = { jsonrpc: '2.0', id: 7, method: 'platform.getBlockchainStatus', params: { blockchainID: 'x' } };

let toClose: Array<FakeUpstream | ProxyApp> = [];
afterEach(async () => {
  await Promise.all(toClose.map((c) => c.close()));
  toClose = [];
});

async function upstream(handle?: Parameters<typeof startUpstream>[0]): Promise<FakeUpstream> {
  const up = await startUpstream(handle);
  toClose.push(up);
  return up;
}

async function proxy(opts: Parameters<typeof startProxy>[0]): Promise<ProxyApp> {
  const app = await startProxy(opts);
  toClose.push(app);
  return app;
}

/** The three answers of one failure: Data API, Metrics API, node JSON-RPC. */
async function allShapes(app: ProxyApp) {
  const [data, metrics, node] = await Promise.all([call(app.url, 'GET', DATA), call(app.url, 'GET', METRICS), rpc(app.url, '/ext/bc/P', CALL)]);
  return { data, metrics, node };
}

describe('no upstream configured', () => {
  test('503 naming the missing upstream, in each shape', async () => {
    const app = await proxy({ upstreams: {} });
    const { data, metrics, node } = await allShapes(app);
    expect(data.status).toBe(503);
    expect(data.json()).toEqual({ message: 'the Data API upstream is not configured (set upstreams.dataApi)', statusCode: 503, error: 'Service Unavailable' });
    expect(metrics.status).toBe(503);
    expect(metrics.json()).toEqual({ message: ['the Metrics API upstream is not configured (set upstreams.metricsApi)'], statusCode: 503, error: 'Service Unavailable' });
    expect(node.status).toBe(503);
    expect(node.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'the node upstream is not configured (set upstreams.node)', data: null }, id: 7 });
    const health = await call(app.url, 'GET', '/ext/health');
    expect(health.status).toBe(503);
    expect(health.json().message).toContain('upstreams.node');
  });

  test('rules are still checked first: a bad request is a 400, not a 503', async () => {
    const app = await proxy({ upstreams: {} });
    expect((await call(app.url, 'GET', '/v1/chains?network=x')).status).toBe(400);
  });
});

describe('upstream unreachable', () => {
  test('503 in each shape', async () => {
    const dead = await closedPortUrl();
    const app = await proxy({ upstreams: { dataApi: dead, metricsApi: dead, node: dead } });
    const { data, metrics, node } = await allShapes(app);
    expect(data.status).toBe(503);
    expect(data.json().message).toMatch(/^the Data API upstream is unreachable \(ECONNREFUSED\)$/);
    expect(metrics.status).toBe(503);
    expect(metrics.json().message[0]).toContain('unreachable');
    expect(node.status).toBe(503);
    expect(node.json().error.message).toContain('unreachable');
    expect(node.json().id).toBe(7);
  });
});

describe('upstream timeout', () => {
  test('504 in each shape when no answer comes within timeoutMs', async () => {
    const slow = await upstream(() => {}); // never answers
    const app = await proxy({ upstreams: { dataApi: slow.url, metricsApi: slow.url, node: slow.url }, timeoutMs: 150 });
    const { data, metrics, node } = await allShapes(app);
    expect(data.status).toBe(504);
    expect(data.json()).toEqual({ message: 'the Data API upstream did not answer within 150 ms', statusCode: 504, error: 'Gateway Timeout' });
    expect(metrics.status).toBe(504);
    expect(metrics.json().message).toEqual(['the Metrics API upstream did not answer within 150 ms']);
    expect(node.status).toBe(504);
    expect(node.json().error).toEqual({ code: -32000, message: 'the node upstream did not answer within 150 ms', data: null });
  });

  test('an answer whose body stalls also times out', async () => {
    const stall = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"a":');
    });
    const app = await proxy({ upstreams: { dataApi: stall.url }, timeoutMs: 150 });
    expect((await call(app.url, 'GET', DATA)).status).toBe(504);
  });
});

describe('invalid upstream answers → 502', () => {
  test.each([
    ['a body over maxResponseBytes (declared)', jsonAnswer(200, { pad: 'x'.repeat(500) }), 'larger than 200 bytes'],
    [
      'a body over maxResponseBytes (chunked)',
      (_r: unknown, res: import('node:http').ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"pad":"${'x'.repeat(150)}`);
        res.end(`${'y'.repeat(150)}"}`);
      },
      'larger than 200 bytes',
    ],
    ['a 200 that is not JSON', jsonAnswer(200, '<html>oops</html>'), 'not JSON'],
    [
      'a truncated body',
      (_r: unknown, res: import('node:http').ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '80' });
        res.write('{"truncated":');
        setTimeout(() => res.socket?.destroy(), 20);
      },
      'truncated',
    ],
    [
      'a redirect',
      (_r: unknown, res: import('node:http').ServerResponse) => {
        res.writeHead(302, { location: 'http://elsewhere.example/' });
        res.end();
      },
      'redirect',
    ],
  ])('%s', async (_name, handler, detail) => {
    const bad = await upstream(handler as Parameters<typeof startUpstream>[0]);
    const app = await proxy({ upstreams: { dataApi: bad.url, metricsApi: bad.url, node: bad.url }, maxResponseBytes: 200 });
    const { data, metrics, node } = await allShapes(app);
    expect(data.status).toBe(502);
    expect(data.json()).toEqual({ message: expect.stringContaining(detail), statusCode: 502, error: 'Bad Gateway' });
    expect(metrics.status).toBe(502);
    expect(metrics.json().message[0]).toContain(detail);
    expect(node.status).toBe(502);
    expect(node.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('invalid response'), data: null }, id: 7 });
  });
});

describe('upstream errors pass through unchanged', () => {
  test.each([
    [404, 'application/json', '{"message":"Chain not found","statusCode":404,"error":"Not Found"}'],
    [500, 'text/html', '<h1>boom</h1>'],
    [400, 'application/json', '{"message":["threshold must be a number string"],"statusCode":400,"error":"Bad Request"}'],
    [503, 'application/json', '{"checks":{},"healthy":false}'],
  ])('%i %s', async (status, type, body) => {
    const up = await upstream((_r, res) => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    });
    const app = await proxy({ upstreams: { dataApi: up.url, metricsApi: up.url, node: up.url } });
    for (const path of [DATA, METRICS, '/ext/health/readiness']) {
      const a = await call(app.url, 'GET', path);
      expect(a.status).toBe(status);
      expect(a.headers['content-type']).toBe(type);
      expect(a.text).toBe(body);
    }
    const n = await rpc(app.url, '/ext/bc/P', CALL);
    expect(n.status).toBe(status);
    expect(n.text).toBe(body);
  });

  test("an upstream 429 keeps its Retry-After", async () => {
    const up = await upstream(jsonAnswer(429, { message: 'slow down', statusCode: 429, error: 'Too Many Requests' }, { 'retry-after': '30' }));
    const app = await proxy({ upstreams: { dataApi: up.url } });
    const a = await call(app.url, 'GET', DATA);
    expect(a.status).toBe(429);
    expect(a.headers['retry-after']).toBe('30');
  });
});

describe('connection pool', () => {
  test('sequential requests reuse one keep-alive connection', async () => {
    const up = await upstream();
    const app = await proxy({ upstreams: { dataApi: up.url }, cacheTtlMs: 0 });
    for (let i = 0; i < 5; i++) expect((await call(app.url, 'GET', `${DATA}?pageSize=${i + 1}`)).status).toBe(200);
    expect(up.requests).toHaveLength(5);
    expect(up.connections).toBe(1);
  });

  test('a pooled connection the upstream dropped is retried once on a fresh one', async () => {
    let n = 0;
    const up = await upstream((_r, res) => {
      n++;
      // The second request arrives on the kept-alive socket; drop it unanswered, as a server
      // closing an idle connection at that moment would.
      if (n === 2) return void res.socket?.destroy();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const app = await proxy({ upstreams: { dataApi: up.url }, cacheTtlMs: 0 });
    expect((await call(app.url, 'GET', DATA)).status).toBe(200);
    expect((await call(app.url, 'GET', `${DATA}?pageSize=2`)).status).toBe(200);
    expect(n).toBe(3);
  });
});
