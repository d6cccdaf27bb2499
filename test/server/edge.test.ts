// What every answer carries and what a public deployment exposes (issue 39, item 5): the security
// headers on every response (routes, 404s, 400s, the metrics listener); a 400 quotes a short
// prefix of the offending value, never the value; allowedHosts refuses a Host header it does not
// list (DNS rebinding); publicMode serves /metrics only on metrics.port, /ready without its
// reasons, /openapi.json without the peer path; the rate limits count an IPv6 client by its /64.
import { request as httpRequest } from 'node:http';
import type { Request } from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { clientAddress } from '../../src/proxy/client-identity.js';
import { hostNameOf } from '../../src/server/edge.js';
import { GLACIER } from '../../src/server/dialects.js';
import { parseQuorumOptions, queryFields } from '../../src/server/quorum-options.js';
import { startService, type Service } from '../../src/service/start.js';

let plain: Service;
let hosts: Service;
let publicService: Service;

function start(overrides: Record<string, unknown>): Promise<Service> {
  return startService(loadConfig({ env: {}, overrides: { port: 0, host: '127.0.0.1', 'workers.threads': 1, 'p2p.enabled': false, ...overrides } }), { logger: pino({ level: 'silent' }) });
}

beforeAll(async () => {
  [plain, hosts, publicService] = await Promise.all([
    start({}),
    start({ allowedHosts: ['warpgate.example', '127.0.0.1'] }),
    start({ publicMode: true, 'metrics.port': 0 }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([plain?.close(), hosts?.close(), publicService?.close()]);
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request with any Host header (fetch would not send another). */
function send(port: number, path: string, opts: { method?: string; host?: string; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: { ...(opts.host ? { host: opts.host } : {}), ...(opts.body ? { 'content-type': 'application/json' } : {}) }, timeout: 15_000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

function expectSecurityHeaders(a: Answer): void {
  expect(a.headers['x-content-type-options']).toBe('nosniff');
  expect(a.headers['x-frame-options']).toBe('DENY');
}

const AGGREGATE = '/v1/signatureAggregator/fuji/aggregateSignatures';

describe('every answer', () => {
  it('carries nosniff and X-Frame-Options DENY: routes, 404s, 400s, 503s', async () => {
    for (const [path, status] of [
      ['/health', 200],
      ['/ready', 503],
      ['/metrics', 200],
      ['/openapi.json', 200],
      ['/no/such/route', 404],
      [AGGREGATE, 400],
    ] as const) {
      const a = await send(plain.port, path, path === AGGREGATE ? { method: 'POST', body: '{"message": ' } : {});
      expect(a.status, path).toBe(status);
      expectSecurityHeaders(a);
    }
  });

  it('a 400 quotes a short prefix of the offending value, not the 200 KB the client sent', async () => {
    const huge = 'x'.repeat(200_000);
    const body = await send(plain.port, AGGREGATE, { method: 'POST', body: JSON.stringify({ message: '00', quorumPercentage: huge }) });
    expect(body.status).toBe(400);
    expectSecurityHeaders(body);
    expect(body.text.length).toBeLessThan(500);
    expect(JSON.parse(body.text).message).toBe(`quorumPercentage: must be an integer, got "${'x'.repeat(39)}… (200002 characters)`);
    // A query's integer is quoted short too (the txHash GET, which needs a node: queryFields on its own).
    expect(() => parseQuorumOptions(queryFields({ quorumPercentage: `${'9'.repeat(8_000)}x` }), GLACIER.fields)).toThrow(
      `quorumPercentage: must be an integer, got '${'9'.repeat(40)}… (8001 characters)'`,
    );
    expect(() => parseQuorumOptions(queryFields({ quorumPercentage: '9'.repeat(8_000) }), GLACIER.fields)).toThrow(/^quorumPercentage: must be from 0 to 100, got 9{40}… \(cut, 8000 characters\)$/);
    const path = await send(plain.port, `/${'p'.repeat(8_000)}`);
    expect(path.status).toBe(404);
    expect(path.text.length).toBeLessThan(500);
  });
});

describe('allowedHosts', () => {
  it('answers a Host it lists, any port, and refuses another with a 403 in the dialect’s shape (DNS rebinding)', async () => {
    expect((await send(hosts.port, '/health', { host: 'warpgate.example' })).status).toBe(200);
    expect((await send(hosts.port, '/health', { host: 'WarpGate.Example:8080' })).status).toBe(200);
    expect((await send(hosts.port, '/health', { host: `127.0.0.1:${hosts.port}` })).status).toBe(200);
    const rebound = await send(hosts.port, '/health', { host: 'attacker.example' });
    expect(rebound.status).toBe(403);
    expectSecurityHeaders(rebound);
    expect(JSON.parse(rebound.text)).toEqual({ statusCode: 403, error: 'Forbidden', message: "host 'attacker.example': not a name this service answers to (allowedHosts)" });
    const icm = await send(hosts.port, '/aggregate-signatures', { method: 'POST', host: 'attacker.example', body: '{}' });
    expect(icm.status).toBe(403);
    expect(Object.keys(JSON.parse(icm.text))).toEqual(['error']);
    // Without allowedHosts, any Host is answered.
    expect((await send(plain.port, '/health', { host: 'attacker.example' })).status).toBe(200);
  });

  it('reads the host name out of a Host header', () => {
    expect(hostNameOf('Example.COM:8080')).toBe('example.com');
    expect(hostNameOf('[::1]:8080')).toBe('::1');
    expect(hostNameOf('example.com.')).toBe('example.com');
    expect(hostNameOf('10.0.0.5')).toBe('10.0.0.5');
  });
});

describe('publicMode', () => {
  it('serves /metrics only on metrics.port, /ready without its reasons, /openapi.json without the peer path', async () => {
    expect((await send(publicService.port, '/metrics')).status).toBe(404);
    expect(publicService.metricsPort).toBeGreaterThan(0);
    const scraped = await send(publicService.metricsPort!, '/metrics');
    expect(scraped.status).toBe(200);
    expectSecurityHeaders(scraped);
    expect(scraped.text).toContain('warpgate_');
    expect((await send(publicService.metricsPort!, '/health')).status).toBe(404);

    const ready = await send(publicService.port, '/ready');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.text)).toEqual({ ready: false, reasons: ['not ready (publicMode withholds the reasons; see the log and /metrics)'], subnets: [] });
    // Outside publicMode the reasons are there.
    expect(JSON.parse((await send(plain.port, '/ready')).text).reasons).toEqual(['upstreams.node is not configured']);

    const doc = await send(publicService.port, '/openapi.json');
    expect(doc.text).not.toContain('/v1/peers');
    expect(Object.keys(JSON.parse(doc.text).paths)).not.toContain('/metrics');
    expect((await send(plain.port, '/openapi.json')).text).toContain('/v1/peers');
  });
});

describe('metrics.port', () => {
  it('in use ends the start with a ConfigError naming metrics.port', async () => {
    const err = await start({ 'metrics.port': plain.port }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toContain(`metrics.port: 127.0.0.1:${plain.port} is already in use (EADDRINUSE)`);
  });
});

describe('the rate limits’ client key', () => {
  it('counts an IPv6 client by its /64 and an IPv4 one (mapped or not) by its address', () => {
    const of = (ip: string): string => clientAddress({ ip, socket: {} } as unknown as Request);
    expect(of('2001:db8:1:2::5')).toBe(of('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(of('2001:db8:1:2::5')).not.toBe(of('2001:db8:1:3::5'));
    expect(of('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(of('203.0.113.7')).not.toBe(of('203.0.113.8'));
  });
});
