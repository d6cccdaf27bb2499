// Metrics hook, logging hygiene, base URLs with a path, slow request bodies and shutdown.
import net from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import type { ProxyObservation } from '../../src/proxy/index.js';
import { call, closedPortUrl, rpc, sleep, startProxy, startUpstream, type FakeUpstream, type ProxyApp } from './helpers.js';

let toClose: Array<FakeUpstream | ProxyApp> = [];
afterEach(async () => {
  await Promise.all(toClose.map((c) => c.close()));
  toClose = [];
});

test('a base URL with a path prefix is kept in front of the forwarded path', async () => {
  const up = await startUpstream();
  const app = await startProxy({ upstreams: { dataApi: `${up.url}/glacier/`, node: `${up.url}/node` } });
  toClose.push(up, app);
  await call(app.url, 'GET', '/v1/chains?network=fuji');
  await rpc(app.url, '/ext/info', { jsonrpc: '2.0', id: 1, method: 'info.getNetworkID' });
  expect(up.requests.map((r) => r.url)).toEqual(['/glacier/v1/chains?network=fuji', '/node/ext/info']);
});

describe('observe hook', () => {
  test('one event per answered request: route pattern, status, upstream and its latency', async () => {
    const up = await startUpstream();
    const events: ProxyObservation[] = [];
    const app = await startProxy({ upstreams: { dataApi: up.url, node: up.url }, observe: (e) => events.push(e), cacheTtlMs: 1000 });
    toClose.push(up, app);
    await call(app.url, 'GET', '/v1/chains/43114/transactions');
    await call(app.url, 'GET', '/v1/chains/x/transactions');
    await call(app.url, 'GET', '/v1/chains');
    await call(app.url, 'GET', '/v1/chains'); // cache hit: no upstream
    await call(app.url, 'GET', '/v1/avg_tps/1'); // metrics upstream not configured
    await rpc(app.url, '/ext/bc/C/rpc', { jsonrpc: '2.0', id: 1, method: 'eth_nope' });
    expect(events.map((e) => [e.route, e.status, e.upstream])).toEqual([
      ['/v1/chains/{chainId}/transactions', 200, 'dataApi'],
      ['/v1/chains/{chainId}/transactions', 400, undefined],
      ['/v1/chains', 200, 'dataApi'],
      ['/v1/chains', 200, undefined],
      ['/v1/avg_tps/{chainId}', 503, undefined],
      ['/ext/bc/{blockchainID}/rpc', 200, undefined],
    ]);
    expect(events[0]!.upstreamMs).toBeGreaterThan(0);
  });

  test('a throwing hook does not break the answer', async () => {
    const up = await startUpstream();
    const app = await startProxy({
      upstreams: { dataApi: up.url },
      observe: () => {
        throw new Error('metrics down');
      },
    });
    toClose.push(up, app);
    expect((await call(app.url, 'GET', '/v1/chains')).status).toBe(200);
  });
});

test('failures are logged without URLs, keys or bodies', async () => {
  const dead = await closedPortUrl();
  const lines: string[] = [];
  const logger = { info: (o: object, m?: string) => lines.push(JSON.stringify([o, m])), warn: (o: object, m?: string) => lines.push(JSON.stringify([o, m])) };
  const app = await startProxy({ upstreams: { dataApi: dead.replace('http://', 'http://user:pw@'), node: dead, apiKey: 'configured-secret' }, logger });
  toClose.push(app);
  await call(app.url, 'GET', '/v1/chains', { headers: { 'x-glacier-api-key': 'client-secret' } });
  await rpc(app.url, '/ext/bc/P', { jsonrpc: '2.0', id: 1, method: 'platform.getBlock', params: { blockID: 'body-secret' } }, { 'x-data-api-key': 'client-secret' });
  expect(lines.length).toBe(2);
  const all = lines.join('\n');
  expect(all).toContain('ECONNREFUSED');
  for (const secret of ['configured-secret', 'client-secret', 'body-secret', 'pw', dead.slice(7)]) expect(all).not.toContain(secret);
});

test('a request body that does not arrive within timeoutMs → 408', async () => {
  const up = await startUpstream();
  const app = await startProxy({ upstreams: { node: up.url }, timeoutMs: 150 });
  toClose.push(up, app);
  const { port } = new URL(app.url);
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write('POST /ext/bc/P HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"jsonrpc":');
    });
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
    setTimeout(() => socket.destroy(), 3000);
  });
  expect(answer).toMatch(/^HTTP\/1\.1 408/);
  expect(answer).toContain('did not arrive within 150 ms');
  expect(up.requests).toHaveLength(0);
});

test('close() fails what is in flight and later requests, and can be called twice', async () => {
  const up = await startUpstream(() => {}); // never answers
  const { createProxyRouter } = await import('../../src/proxy/index.js');
  const express = (await import('express')).default;
  const http = await import('node:http');
  const proxy = createProxyRouter({ upstreams: { dataApi: up.url }, timeoutMs: 5000 });
  const server = http.createServer(express().use(proxy.router));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  try {
    const pending = call(base, 'GET', '/v1/chains');
    await sleep(100);
    await proxy.close();
    await proxy.close();
    const a = await pending;
    expect(a.status).toBe(503);
    expect((await call(base, 'GET', '/v1/chains/1/transactions')).json().message).toContain('shutting down');
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await up.close();
  }
});
