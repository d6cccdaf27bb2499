// Cacheable GETs are answered from memory for cacheTtlMs; identical GETs in flight together make
// one upstream call.
import { afterEach, describe, expect, test } from 'vitest';
import type { ServerResponse } from 'node:http';
import { call, sleep, startProxy, startUpstream, type FakeUpstream, type ProxyApp, type Recorded } from './helpers.js';
import type { ProxyOptions } from '../../src/proxy/index.js';

let toClose: Array<FakeUpstream | ProxyApp> = [];
afterEach(async () => {
  await Promise.all(toClose.map((c) => c.close()));
  toClose = [];
});

/** An upstream numbering its answers, so a cached answer is recognisable. */
async function setup(opts: Omit<ProxyOptions, 'upstreams'> = {}, handle?: (n: number, req: Recorded, res: ServerResponse) => void) {
  let n = 0;
  const up = await startUpstream((req, res) => {
    n++;
    if (handle) return handle(n, req, res);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ answer: n }));
  });
  const app = await startProxy({ upstreams: { dataApi: up.url, metricsApi: up.url, node: up.url }, ...opts });
  toClose.push(up, app);
  return { up, app };
}

describe('cache', () => {
  test('/v1/chains is answered from the cache within the TTL, then fetched again', async () => {
    const { up, app } = await setup({ cacheTtlMs: 150 });
    const first = await call(app.url, 'GET', '/v1/chains?network=mainnet');
    const second = await call(app.url, 'GET', '/v1/chains?network=mainnet');
    expect(first.json()).toEqual({ answer: 1 });
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.headers['content-type']).toBe('application/json');
    expect(up.requests).toHaveLength(1);
    await sleep(200);
    expect((await call(app.url, 'GET', '/v1/chains?network=mainnet')).json()).toEqual({ answer: 2 });
  });

  test('the key is the path and query: another query is another entry', async () => {
    const { up, app } = await setup();
    await call(app.url, 'GET', '/v1/chains?network=mainnet');
    await call(app.url, 'GET', '/v1/chains?network=fuji');
    await call(app.url, 'GET', '/v1/chains?network=fuji');
    expect(up.requests.map((r) => r.url)).toEqual(['/v1/chains?network=mainnet', '/v1/chains?network=fuji']);
  });

  test('other cacheable reads: metrics and a contract deployment', async () => {
    const { up, app } = await setup();
    const addr = `0x${'ab'.repeat(20)}`;
    for (let i = 0; i < 2; i++) {
      await call(app.url, 'GET', '/v1/avg_tps/43114');
      await call(app.url, 'GET', `/v1/chains/43114/contracts/${addr}/transactions:getDeployment`);
    }
    expect(up.requests).toHaveLength(2);
  });

  test('live data (latest transactions) is not cached', async () => {
    const { up, app } = await setup();
    await call(app.url, 'GET', '/v1/chains/43114/transactions');
    await call(app.url, 'GET', '/v1/chains/43114/transactions');
    expect(up.requests).toHaveLength(2);
  });

  test('only successes are cached', async () => {
    const { up, app } = await setup({}, (n, _req, res) => {
      res.writeHead(n === 1 ? 500 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ answer: n }));
    });
    expect((await call(app.url, 'GET', '/v1/chains')).status).toBe(500);
    expect((await call(app.url, 'GET', '/v1/chains')).json()).toEqual({ answer: 2 });
    expect((await call(app.url, 'GET', '/v1/chains')).json()).toEqual({ answer: 2 });
    expect(up.requests).toHaveLength(2);
  });

  test('an upstream Cache-Control: no-store is honoured', async () => {
    const { up, app } = await setup({}, (n, _req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ answer: n }));
    });
    await call(app.url, 'GET', '/v1/chains');
    await call(app.url, 'GET', '/v1/chains');
    expect(up.requests).toHaveLength(2);
  });

  test('answers fetched with different API keys are not shared', async () => {
    const { up, app } = await setup();
    const a = await call(app.url, 'GET', '/v1/chains', { headers: { 'x-glacier-api-key': 'alice' } });
    const b = await call(app.url, 'GET', '/v1/chains', { headers: { 'x-glacier-api-key': 'bob' } });
    const a2 = await call(app.url, 'GET', '/v1/chains', { headers: { 'x-glacier-api-key': 'alice' } });
    expect(a.json()).toEqual({ answer: 1 });
    expect(b.json()).toEqual({ answer: 2 });
    expect(a2.json()).toEqual({ answer: 1 });
    expect(up.requests).toHaveLength(2);
  });

  test('cacheTtlMs 0 turns the cache off', async () => {
    const { up, app } = await setup({ cacheTtlMs: 0 });
    await call(app.url, 'GET', '/v1/chains');
    await call(app.url, 'GET', '/v1/chains');
    expect(up.requests).toHaveLength(2);
  });

  test('cacheMaxEntries bounds the cache; the least recently used entry goes first', async () => {
    const { up, app } = await setup({ cacheMaxEntries: 2 });
    for (const q of ['a', 'b', 'a', 'c', 'a', 'b']) await call(app.url, 'GET', `/v1/chains?network=mainnet&q=${q}`);
    // a, b fetched; a hit; c evicts b (least recent); a hit; b fetched again.
    expect(up.requests.map((r) => r.url.slice(-1))).toEqual(['a', 'b', 'c', 'b']);
  });
});

describe('coalescing', () => {
  const slow = (n: number, _req: Recorded, res: ServerResponse): void => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ answer: n }));
    }, 100);
  };

  test('identical GETs in flight together make one upstream call and get the same answer', async () => {
    const { up, app } = await setup({ cacheTtlMs: 0 }, slow);
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(app.url, 'GET', '/v1/chains/43114/transactions?pageSize=5')));
    expect(up.requests).toHaveLength(1);
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.json()).toEqual({ answer: 1 });
    }
  });

  test('different paths, queries or keys are separate calls', async () => {
    const { up, app } = await setup({ cacheTtlMs: 0 }, slow);
    await Promise.all([
      call(app.url, 'GET', '/v1/chains/43114/transactions'),
      call(app.url, 'GET', '/v1/chains/43114/transactions?pageSize=2'),
      call(app.url, 'GET', '/v1/chains/43113/transactions'),
      call(app.url, 'GET', '/v1/chains/43114/transactions', { headers: { 'x-glacier-api-key': 'other' } }),
    ]);
    expect(up.requests).toHaveLength(4);
  });

  test('a failure is shared by everyone waiting on it, and is not remembered', async () => {
    const { up, app } = await setup({ cacheTtlMs: 0 }, (n, _req, res) => {
      setTimeout(() => {
        res.writeHead(n === 1 ? 500 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ answer: n }));
      }, 100);
    });
    const answers = await Promise.all(Array.from({ length: 3 }, () => call(app.url, 'GET', '/v1/chains/43114/transactions')));
    expect(answers.map((a) => a.status)).toEqual([500, 500, 500]);
    expect((await call(app.url, 'GET', '/v1/chains/43114/transactions')).status).toBe(200);
    expect(up.requests).toHaveLength(2);
  });

  test('GET health checks are coalesced too', async () => {
    const { up, app } = await setup({}, slow);
    await Promise.all(Array.from({ length: 4 }, () => call(app.url, 'GET', '/ext/health/liveness')));
    expect(up.requests).toHaveLength(1);
  });
});
