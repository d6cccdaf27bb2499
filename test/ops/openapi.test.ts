// GET /openapi.json: a valid OpenAPI 3.1 document (checked by @seriousme/openapi-schema-validator)
// that documents exactly the app's own routes (the forwarded read endpoints are those APIs' own),
// both ways, with and without the status page (publicMode); and real answers of a devnet, good
// and bad, in both dialects, have a documented status and match its schema (Ajv, JSON Schema
// 2020-12 as OpenAPI 3.1 uses it).
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { createApp } from '../../src/server/app.js';
import { startService, type Service } from '../../src/service/start.js';
import { request } from './helpers.js';

interface OpenApi {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }>; headers?: Record<string, { schema: object }> }> }>>;
  components: { schemas: Record<string, unknown> };
}

let devnet: Devnet;
let publicService: Service;

beforeAll(async () => {
  const logger = pino({ level: 'silent' });
  [devnet, publicService] = await Promise.all([
    startDevnet({ validators: 4, port: 0, logger, configOverrides: { 'workers.threads': 1 } }),
    startService(loadConfig({ env: {}, overrides: { port: 0, host: '127.0.0.1', publicMode: true, 'workers.threads': 1 } }), { logger }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([devnet?.close(), publicService?.close()]);
});

async function documentOf(url: string): Promise<OpenApi> {
  const res = await request(`${url}/openapi.json`);
  expect(res.status).toBe(200);
  return res.body as OpenApi;
}

/**
 * The routes of the app a service runs (createApp, as startService calls it), as `METHOD
 * /path/{param}`: route layers only; the proxy's router is mounted whole, not as routes.
 */
function appRoutes(service: Service, withStatusPage: boolean): string[] {
  // Without the status page is publicMode, which serves no /metrics on the main port either.
  const app = createApp({
    config: loadConfig({ env: {}, overrides: { publicMode: !withStatusPage } }),
    aggregator: service.aggregator,
    logger: service.logger,
    metrics: service.metrics,
    readiness: async () => ({ ready: true, reasons: [], subnets: [] }),
    status: withStatusPage ? { report: () => Promise.reject(new Error('unused')), refreshMs: 1000 } : undefined,
    proxyRouter: undefined,
  }) as unknown as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } };
  return app.router.stack.flatMap((layer) =>
    layer.route ? Object.keys(layer.route.methods).map((m) => `${m.toUpperCase()} ${layer.route!.path.replace(/:(\w+)/g, '{$1}')}`) : [],
  );
}

function documentedRoutes(doc: OpenApi): string[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((k) => k !== 'parameters').map((m) => `${m.toUpperCase()} ${path}`));
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = await documentOf(devnet.info.url);
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents exactly the app\'s own routes, with the status page and without it (publicMode)', async () => {
    const doc = await documentOf(devnet.info.url);
    expect(documentedRoutes(doc).sort()).toEqual(appRoutes(devnet.service, true).sort());
    expect(documentedRoutes(doc)).toEqual(expect.arrayContaining(['POST /v1/signatureAggregator/{network}/aggregateSignatures', 'POST /aggregate-signatures', 'GET /status.json']));
    const publicDoc = await documentOf(publicService.url);
    expect(documentedRoutes(publicDoc).sort()).toEqual(appRoutes(publicService, false).sort());
    expect(documentedRoutes(publicDoc)).not.toContain('GET /status.json');
  });

  it('describes the real answers, good and bad, of both dialects: a documented status and a body its schema accepts', async () => {
    const doc = await documentOf(devnet.info.url);
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    const { url } = devnet.info;
    const glacier = '/v1/signatureAggregator/{network}/aggregateSignatures';
    const message = devnet.exampleMessageHex('openapi');
    const cases: { path: string; method: 'get' | 'post'; url: string; body?: string; status: number }[] = [
      { path: glacier, method: 'post', url: `${url}/v1/signatureAggregator/fuji/aggregateSignatures`, body: JSON.stringify({ message }), status: 201 },
      {
        path: glacier,
        method: 'post',
        url: `${url}/v1/signatureAggregator/fuji/aggregateSignatures`,
        body: JSON.stringify({ message: devnet.exampleMessageHex('openapi epoch'), destinationBlockchainId: devnet.info.blockchainId, timeoutMs: 20_000 }),
        status: 201,
      },
      { path: glacier, method: 'post', url: `${url}/v1/signatureAggregator/fuji/aggregateSignatures`, body: JSON.stringify({ message, quorumPercentage: 101 }), status: 400 },
      { path: glacier, method: 'post', url: `${url}/v1/signatureAggregator/fuji/aggregateSignatures`, body: JSON.stringify({ message: `0x${'00'.repeat(300_000)}` }), status: 413 },
      { path: glacier, method: 'post', url: `${url}/v1/signatureAggregator/fuji/aggregateSignatures`, body: JSON.stringify({ message, signingSubnetId: devnet.info.blockchainId }), status: 404 },
      { path: '/aggregate-signatures', method: 'post', url: `${url}/aggregate-signatures`, body: JSON.stringify({ message }), status: 200 },
      { path: '/aggregate-signatures', method: 'post', url: `${url}/aggregate-signatures`, body: '{"message": ', status: 400 },
      { path: `${glacier}/{txHash}`, method: 'get', url: `${url}/v1/signatureAggregator/fuji/aggregateSignatures/${devnet.info.l1ConversionTxId}`, status: 201 },
      { path: `${glacier}/{txHash}`, method: 'get', url: `${url}/v1/signatureAggregator/fuji/aggregateSignatures/not-cb58`, status: 400 },
      { path: '/health', method: 'get', url: `${url}/health`, status: 200 },
      { path: '/ready', method: 'get', url: `${url}/ready`, status: 200 },
      { path: '/status.json', method: 'get', url: `${url}/status.json`, status: 200 },
      { path: '/status', method: 'get', url: `${url}/status`, status: 200 },
      { path: '/metrics', method: 'get', url: `${url}/metrics`, status: 200 },
      { path: '/openapi.json', method: 'get', url: `${url}/openapi.json`, status: 200 },
    ];
    for (const c of cases) {
      const what = `${c.method.toUpperCase()} ${c.path} → ${c.status}`;
      const res = await fetch(c.url, { method: c.method.toUpperCase(), headers: c.body ? { 'content-type': 'application/json' } : {}, body: c.body, signal: AbortSignal.timeout(20_000) });
      expect(res.status, what).toBe(c.status);
      const documented = doc.paths[c.path]?.[c.method]?.responses[String(res.status)];
      expect(documented, `${what} is documented`).toBeDefined();
      // Every documented header is there and its schema accepts it.
      for (const [name, header] of Object.entries(documented!.headers ?? {})) {
        const value = res.headers.get(name);
        expect(value, `${what}: header ${name}`).not.toBeNull();
        expect(ajv.validate((header as { schema: object }).schema, value), `${what}: header ${name} = ${value}`).toBe(true);
      }
      const type = (res.headers.get('content-type') ?? '').split(';')[0]!;
      const content = documented!.content?.[type];
      expect(content, `${what}: ${type} is documented`).toBeDefined();
      const text = await res.text();
      if (type !== 'application/json') continue;
      const validate = ajv.compile({ ...(content!.schema as object), components: doc.components });
      const valid = validate(JSON.parse(text));
      expect(validate.errors ?? [], `${what}: ${text.slice(0, 300)}`).toEqual([]);
      expect(valid).toBe(true);
    }
  });

  it('the schemas are strict enough to tell: a wrong error shape or an extra status field fails', async () => {
    const doc = await documentOf(devnet.info.url);
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const schema = (name: string): ReturnType<typeof ajv.compile> => ajv.compile({ $ref: `#/components/schemas/${name}`, components: doc.components });
    expect(schema('IcmError')({ error: 'x' })).toBe(true);
    expect(schema('IcmError')({ message: 'x', statusCode: 400, error: 'Bad Request' })).toBe(false);
    expect(schema('DataApiError')({ error: 'x' })).toBe(false);
    const status = (await request(`${devnet.info.url}/status.json`)).body as Record<string, unknown>;
    expect(schema('StatusReport')(status)).toBe(true);
    expect(schema('StatusReport')({ ...status, clientAddress: '10.0.0.1' })).toBe(false);
  });
});
