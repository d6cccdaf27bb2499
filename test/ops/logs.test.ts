// Logs: pino JSON, one line per request with a request id, no bodies, and no API key anywhere,
// neither the configured upstream key (the configuration line, forwarded requests) nor a client's
// own. The startup line is a short summary at info; the whole configuration is at debug.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/config.js';
import { Writable } from 'node:stream';
import { createLogger, resolveLogFormat } from '../../src/service/logger.js';
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
  service = await startService(config, { logger: createLogger('debug', log) });
});

afterAll(async () => {
  await service?.close();
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
});

describe('logs', () => {
  it('are JSON lines; the startup line is a summary at info, the configuration (key redacted) at debug', () => {
    const records = log.records;
    const startup = records.find((r) => r.msg === 'warpgate listening');
    expect(startup).toBeDefined();
    expect(startup!.level).toBe(30);
    expect(startup).toMatchObject({ url: service.url, address: `127.0.0.1:${service.port}`, version: expect.any(String), peers: 0, p2p: 'off', bls: expect.any(String), workers: 1 });
    // A summary: no configuration dump, which a person would have to scroll past.
    expect(startup!.config).toBeUndefined();
    expect(JSON.stringify(startup).length).toBeLessThan(400);
    const configuration = records.find((r) => r.config !== undefined);
    expect(configuration).toMatchObject({ level: 20, msg: 'configuration (secrets redacted)' });
    expect(configuration!.config.upstreams.apiKey).toBe('[redacted]');
    expect(configuration!.config.workers.threads).toBe(1);
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

describe('pretty logs (a person at a terminal)', () => {
  /** A stream that collects what is written and says whether it is a terminal. */
  function sink(isTTY: boolean): { stream: Writable & { isTTY: boolean }; text: () => string } {
    const chunks: string[] = [];
    const stream = Object.assign(new Writable({ write: (chunk, _enc, done) => (chunks.push(String(chunk)), done()) }), { isTTY });
    return { stream, text: () => chunks.join('') };
  }

  it('are one line each: time, level, component and message, then the fields left; keys still redacted', () => {
    const out = sink(false);
    const logger = createLogger('info', out.stream, 'pretty');
    logger.info({ url: 'http://127.0.0.1:8080', peers: 3, apiKey: 'a-secret' }, 'warpgate listening');
    logger.child({ component: 'p2p' }).warn({ nodeId: 'NodeID-x' }, 'dial failed');
    logger.info({ req: { id: 'r1', method: 'POST', url: '/v1/signatureAggregator/fuji/aggregateSignatures' }, res: { statusCode: 201 }, responseTime: 12.4, pChainHeight: 7 }, 'request completed');
    const lines = out.text().trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: warpgate listening \{"url":"http:\/\/127\.0\.0\.1:8080","peers":3,"apiKey":"\[redacted\]"\}$/),
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: p2p: dial failed \{"nodeId":"NodeID-x"\}$/),
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: POST \/v1\/signatureAggregator\/fuji\/aggregateSignatures → 201 in 12 ms \{"pChainHeight":7\}$/),
    ]);
    expect(out.text()).not.toContain('a-secret');
    // No colour codes unless the stream is a terminal.
    expect(out.text()).not.toContain('\u001b[');
  });

  it('auto: pretty (in colour) on a terminal, JSON lines elsewhere', () => {
    const terminal = sink(true);
    const noColor = process.env.NO_COLOR;
    delete process.env.NO_COLOR;
    try {
      createLogger('info', terminal.stream, 'auto').info({ peers: 1 }, 'hello');
    } finally {
      if (noColor !== undefined) process.env.NO_COLOR = noColor;
    }
    expect(terminal.text()).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] .*INFO.*: .*hello/);
    expect(terminal.text()).toContain('\u001b[');
    const pipe = sink(false);
    createLogger('info', pipe.stream, 'auto').info({ peers: 1 }, 'hello');
    expect(JSON.parse(pipe.text())).toMatchObject({ level: 30, msg: 'hello', peers: 1 });
    expect(resolveLogFormat('auto', { isTTY: true })).toBe('pretty');
    expect(resolveLogFormat('auto', {})).toBe('json');
    expect(resolveLogFormat('json', { isTTY: true })).toBe('json');
  });
});
