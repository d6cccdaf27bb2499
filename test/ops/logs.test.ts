// Logs: pino JSON, one line per request with a request id, no bodies, and no API key anywhere,
// neither the configured upstream key (startup line, forwarded requests) nor a client's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/service/logger.js';
import { startService, type Service } from '../../src/service/start.js';
import { CapturedLog, postJson, request } from './helpers.js';

const UPSTREAM_KEY = 'sk-UPSTREAM-6f1c2d9e';
const CLIENT_KEY = 'ck-CLIENT-0a8b7c6d';
const BODY_MARKER = 'BODY-MARKER-5e4f3a';

let upstream: Server;
const upstreamKeys: (string | undefined)[] = [];
let service: Service;
const log = new CapturedLog();

beforeAll(async () => {
  // A Data API stand-in that records which key reached it.
  upstream = createServer((req, res) => {
    upstreamKeys.push(req.headers['x-glacier-api-key'] as string | undefined);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"chains":[]}');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const config = loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: '127.0.0.1',
      'workers.threads': 1,
      'upstreams.dataApi': `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      'upstreams.apiKey': UPSTREAM_KEY,
      'proxy.cacheTtlMs': 0,
    },
  });
  service = await startService(config, { logger: createLogger(config.logLevel, log) });
});

afterAll(async () => {
  await service?.close();
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
});

describe('logs', () => {
  it('are JSON lines; the startup line shows the config with the key redacted', () => {
    const records = log.records;
    const startup = records.find((r) => r.msg === 'warpgate listening');
    expect(startup).toBeDefined();
    expect(startup!.config.upstreams.apiKey).toBe('[redacted]');
    expect(startup!.address).toBe(`127.0.0.1:${service.port}`);
    expect(startup!.level).toBe(30);
  });

  it('write one line per request with its id, and neither bodies nor keys', async () => {
    const forwarded = await request(`${service.url}/v1/chains`, { headers: { 'x-glacier-api-key': CLIENT_KEY, 'x-request-id': 'req-forwarded-1' } });
    expect(forwarded.status).toBe(200);
    const withUpstreamKey = await request(`${service.url}/v1/chains?network=mainnet`);
    expect(withUpstreamKey.status).toBe(200);
    // The keys did their job upstream: the client's own, then the configured one.
    expect(upstreamKeys).toEqual([CLIENT_KEY, UPSTREAM_KEY]);
    const rejected = await postJson(`${service.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: BODY_MARKER }, { 'x-data-api-key': CLIENT_KEY });
    expect(rejected.status).toBe(400);

    const ids = [forwarded, withUpstreamKey, rejected].map((r) => r.headers.get('x-request-id'));
    expect(ids[0]).toBe('req-forwarded-1');
    for (const id of ids) expect(id).toMatch(/^[\w.-]{1,64}$/);
    expect(new Set(ids).size).toBe(3);
    const requestLines = log.records.filter((r) => r.req !== undefined);
    for (const id of ids) expect(requestLines.filter((r) => r.req.id === id), `one line for ${id}`).toHaveLength(1);
    const line = requestLines.find((r) => r.req.id === ids[2])!;
    expect(line).toMatchObject({ req: { method: 'POST', url: '/v1/signatureAggregator/fuji/aggregateSignatures' }, res: { statusCode: 400 } });
    expect(typeof line.responseTime).toBe('number');
    expect(Object.keys(line.req).sort()).toEqual(['id', 'method', 'url']);

    for (const text of log.lines) {
      expect(text).not.toContain(UPSTREAM_KEY);
      expect(text).not.toContain(CLIENT_KEY);
      expect(text).not.toContain(BODY_MARKER);
    }
  });

  it('take their level from the config', async () => {
    const quiet = await startService(loadConfig({ env: {}, overrides: { port: 0, host: '127.0.0.1', 'workers.threads': 1, logLevel: 'warn' } }));
    try {
      expect(quiet.logger.level).toBe('warn');
      expect(quiet.logger.isLevelEnabled('info')).toBe(false);
    } finally {
      await quiet.close();
    }
  });

  it('censor key-bearing fields even if a log call passes them', () => {
    const sink = new CapturedLog();
    const logger = createLogger('info', sink);
    logger.info({ apiKey: 'a-secret', upstreams: { apiKey: 'b-secret', node: null }, req: { headers: { 'x-glacier-api-key': 'c-secret', authorization: 'd-secret' } } }, 'careless');
    logger.info({ upstreams: { apiKey: null } }, 'no key set');
    expect(sink.lines.join('\n')).not.toMatch(/[a-d]-secret/);
    expect(sink.records[0]!.upstreams).toEqual({ apiKey: '[redacted]', node: null });
    expect(sink.records[1]!.upstreams.apiKey).toBeNull();
  });
});
