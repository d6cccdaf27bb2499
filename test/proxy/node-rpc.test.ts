// Node endpoints (seed 002): JSON-RPC forwarding, the errors answered the way avalanchego and geth
// answer them, batches, deprecation marks, public mode, and the GET health endpoints.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { C_CHAIN, PRIMARY } from './fixtures.js';
import { call, rpc, startProxy, startUpstream, type FakeUpstream, type ProxyApp, type UpstreamHandler } from './helpers.js';

const X_CHAIN_ID = '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM';

/** A node stand-in: answers each call with its method as the result; nothing for notifications. */
const nodeLike: UpstreamHandler = (req, res) => {
  const body = JSON.parse(req.body) as { id?: unknown; method?: string };
  res.setHeader('content-type', 'application/json; charset=utf-8');
  if (body.id === undefined) return void res.end();
  res.end(JSON.stringify({ jsonrpc: '2.0', result: { method: body.method, path: req.url }, id: body.id }));
};

let up: FakeUpstream;
let app: ProxyApp;
let publicApp: ProxyApp;

beforeAll(async () => {
  up = await startUpstream(nodeLike);
  app = await startProxy({ upstreams: { node: up.url, apiKey: 'node-key' } });
  publicApp = await startProxy({ upstreams: { node: up.url }, publicMode: true });
});
afterAll(async () => {
  await Promise.all([app?.close(), publicApp?.close()]);
  await up?.close();
});
beforeEach(() => {
  up.requests.length = 0;
  up.handle = nodeLike;
});

const c = (method: string, params?: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

describe('forwarding', () => {
  test.each([
    ['/ext/bc/X', 'avm.getHeight'],
    ['/ext/bc/X', 'avm.getUTXOs'],
    ['/ext/bc/P', 'platform.getCurrentValidators'],
    ['/ext/bc/P', 'platform.getBlockByHeight'],
    ['/ext/info', 'info.getNetworkID'],
    ['/ext/info', 'info.getNodeID'],
    ['/ext/info', 'info.upgrades'],
    ['/ext/health', 'health.health'],
    ['/ext/health', 'health.liveness'],
    [`/ext/bc/${C_CHAIN}/rpc`, 'eth_blockNumber'],
    ['/ext/bc/C/rpc', 'eth_feeConfig'],
    ['/ext/bc/C/rpc', 'eth_getActiveRulesAt'],
    ['/ext/bc/C/rpc', 'warp_getMessageSignature'],
    [`/ext/bc/${C_CHAIN}/validators`, 'validators.getCurrentValidators'],
    [`/ext/bc/${X_CHAIN_ID}`, 'avm.getTx'],
    [`/ext/bc/${PRIMARY}`, 'platform.getBlockchainStatus'],
  ])('POST %s %s', async (path, method) => {
    const a = await rpc(app.url, path, c(method, path.endsWith('/rpc') ? [] : {}, 3), { 'user-agent': 'ua/1' });
    expect(a.status).toBe(200);
    expect(a.json()).toEqual({ jsonrpc: '2.0', result: { method, path }, id: 3 });
    const seen = up.requests[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe(path);
    expect(seen.headers['content-type']).toBe('application/json');
    // The key is a Data API credential: it never goes to the node (test/proxy/api-keys.test.ts).
    expect(seen.headers['x-glacier-api-key']).toBeUndefined();
    expect(seen.headers['user-agent']).toBe('ua/1');
  });

  test('the body goes upstream byte for byte (spacing, key order, numbers beyond 2^53)', async () => {
    const raw = '{ "id": 12345678901234567890,"method":"platform.getBlockByHeight" , "params":{"height":18446744073709551615},"jsonrpc":"2.0"}';
    up.handle = (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"jsonrpc":"2.0","result":{"height":18446744073709551615},"id":12345678901234567890}');
    };
    const a = await rpc(app.url, '/ext/bc/P', raw);
    expect(up.requests[0]!.body).toBe(raw);
    expect(a.text).toBe('{"jsonrpc":"2.0","result":{"height":18446744073709551615},"id":12345678901234567890}');
  });

  test('params may be omitted, null, or an array holding the argument object; id may be 0', async () => {
    for (const body of [
      { jsonrpc: '2.0', id: 0, method: 'platform.getBlockchains' },
      { jsonrpc: '2.0', id: 0, method: 'platform.getBlockchains', params: null },
      { jsonrpc: '2.0', id: 0, method: 'platform.getCurrentSupply', params: [{ subnetID: PRIMARY }] },
      { jsonrpc: '2.0', id: 'str', method: 'platform.getCurrentSupply', params: [] },
    ]) {
      const a = await rpc(app.url, '/ext/bc/P', body);
      expect(a.json().result.method).toBe(body.method);
      expect(a.json().id).toBe(body.id);
    }
    expect(up.requests).toHaveLength(4);
  });

  test('a notification is forwarded and answered with nothing', async () => {
    const a = await rpc(app.url, '/ext/bc/P', { jsonrpc: '2.0', method: 'platform.getBlockchains', params: {} });
    expect(a.status).toBe(200);
    expect(a.text).toBe('');
    expect(up.requests).toHaveLength(1);
  });

  test('content-type with a charset is accepted', async () => {
    const a = await rpc(app.url, '/ext/info', c('info.getNetworkName', {}), { 'content-type': 'application/json; charset=UTF-8' });
    expect(a.status).toBe(200);
    expect(a.json().result.method).toBe('info.getNetworkName');
  });

  test.each(['/ext/health', '/ext/health/health', '/ext/health/readiness', '/ext/health/liveness'])('GET %s with repeated tags', async (path) => {
    up.handle = (_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"checks":{"C":{"error":"not bootstrapped"}},"healthy":false}');
    };
    const withTags = `${path}?tag=${PRIMARY}&tag=C`;
    const a = await call(app.url, 'GET', withTags);
    expect(a.status).toBe(503);
    expect(a.text).toBe('{"checks":{"C":{"error":"not bootstrapped"}},"healthy":false}');
    expect(up.requests[0]!.method).toBe('GET');
    expect(up.requests[0]!.url).toBe(withTags);
  });
});

describe('deprecated methods carry a Deprecation header', () => {
  test.each([
    ['/ext/bc/X', 'avm.getAllBalances'],
    ['/ext/bc/X', 'avm.getBalance'],
    ['/ext/bc/X', 'avm.getTxStatus'],
    ['/ext/bc/P', 'platform.getBalance'],
    ['/ext/bc/P', 'platform.getBlockchains'],
    ['/ext/info', 'info.getTxFee'],
    ['/ext/bc/C/rpc', 'eth_getActivePrecompilesAt'],
  ])('%s %s', async (path, method) => {
    const a = await rpc(app.url, path, c(method));
    expect(a.status).toBe(200);
    expect(a.headers.deprecation).toBe('true');
    expect(up.requests).toHaveLength(1);
  });

  test('current methods do not', async () => {
    const a = await rpc(app.url, '/ext/bc/X', c('avm.getHeight'));
    expect(a.headers.deprecation).toBeUndefined();
  });
});

/** [body, code, message, id echoed] for /ext/bc/P; none of these reaches the node. */
const AVALANCHEGO_ERRORS: Array<[string, unknown, number, string, unknown]> = [
  ['unparseable JSON', '{"jsonrpc":', -32700, 'invalid JSON', null],
  ['an empty body', '', -32700, 'unexpected end of JSON input', null],
  ['a JSON string', '"platform.getBlock"', -32600, 'a JSON-RPC request must be a JSON object', null],
  ['jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'platform.getBlock' }, -32600, 'jsonrpc must be 2.0', 1],
  ['jsonrpc missing', { id: 2, method: 'platform.getBlock' }, -32600, 'jsonrpc must be 2.0', 2],
  ['a numeric method', { jsonrpc: '2.0', id: 1, method: 5 }, -32600, 'method must be a string', 1],
  ['an object id', { jsonrpc: '2.0', id: {}, method: 'platform.getBlock' }, -32600, 'id must be a string, a number or null', null],
  ['an unknown method', c('platform.foo'), -32000, 'rpc: can\'t find method "platform.Foo"', 1],
  ['a method outside the seed table', c('platform.getFeeState'), -32000, 'rpc: can\'t find method "platform.GetFeeState"', 1],
  ['another service', c('avm.getHeight'), -32000, 'rpc: can\'t find service "avm.GetHeight"', 1],
  ['no service', c('getHeight'), -32000, 'rpc: service/method request ill-formed: "getHeight"', 1],
  ['three parts', c('platform.get.height'), -32000, 'rpc: service/method request ill-formed: "platform.Get.height"', 1],
  ['an empty method', c(''), -32000, 'rpc: service/method request ill-formed: ""', 1],
  ['an upper-case method', c('platform.GetBlock'), -32000, 'method must start with a non-uppercase letter', 1],
  ['string params', c('platform.getBlock', 'x'), -32000, "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls", 1],
  ['params [5]', c('platform.getBlock', [5]), -32000, "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls", 1],
];

describe('avalanchego-style errors, answered locally with HTTP 200', () => {
  test.each(AVALANCHEGO_ERRORS)('%s', async (_name, body, code, message, id) => {
    const a = await rpc(app.url, '/ext/bc/P', body);
    expect(a.status).toBe(200);
    const answer = a.json();
    expect(answer).toEqual({ jsonrpc: '2.0', error: { code, message: expect.any(String), data: null }, id });
    expect(answer.error.message).toContain(message);
    expect(up.requests).toHaveLength(0);
  });

  test('an erroneous notification gets an empty answer, as gorilla sends', async () => {
    const a = await rpc(app.url, '/ext/bc/P', { jsonrpc: '2.0', method: 'platform.foo' });
    expect(a.status).toBe(200);
    expect(a.text).toBe('');
    expect(up.requests).toHaveLength(0);
  });

  test('each endpoint knows only its own methods', async () => {
    expect((await rpc(app.url, '/ext/info', c('info.getNodeIP'))).json().result.method).toBe('info.getNodeIP');
    expect((await rpc(app.url, '/ext/info', c('platform.getBlock'))).json().error.message).toBe('rpc: can\'t find service "platform.GetBlock"');
    expect((await rpc(app.url, '/ext/health', c('health.foo'))).json().error.message).toBe('rpc: can\'t find method "health.Foo"');
    expect((await rpc(app.url, `/ext/bc/${C_CHAIN}/validators`, c('validators.getValidators'))).json().error.code).toBe(-32000);
  });
});

describe('geth-style errors on /ext/bc/{id}/rpc', () => {
  test.each([
    ['an unknown method', c('eth_foo', []), { code: -32601, message: 'the method eth_foo does not exist/is not available' }, 1],
    ['a state-changing method', c('eth_sendRawTransaction', ['0x00']), { code: -32601, message: 'the method eth_sendRawTransaction does not exist/is not available' }, 1],
    ['object params', c('eth_blockNumber', {}), { code: -32602, message: 'non-array args' }, 1],
    ['too many arguments', c('eth_getChainConfig', [1]), { code: -32602, message: 'too many arguments, want at most 0' }, 1],
    ['too many arguments (fee config)', c('eth_feeConfig', ['latest', 1]), { code: -32602, message: 'too many arguments, want at most 1' }, 1],
    ['a bad envelope', { jsonrpc: '2.0', id: 4, method: 7 }, { code: -32600, message: 'invalid request' }, 4],
    ['unparseable JSON', '[{', { code: -32700, message: 'parse error' }, null],
  ])('%s', async (_name, body, error, id) => {
    const a = await rpc(app.url, '/ext/bc/C/rpc', body);
    expect(a.status).toBe(200);
    expect(a.json()).toEqual({ jsonrpc: '2.0', error, id });
    expect(up.requests).toHaveLength(0);
  });
});

describe('HTTP-level answers', () => {
  test.each(['/ext/bc/P', '/ext/bc/X', '/ext/info', `/ext/bc/${C_CHAIN}/validators`])('GET %s → 405', async (path) => {
    const a = await call(app.url, 'GET', path);
    expect(a.status).toBe(405);
    expect(a.headers.allow).toBe('POST');
    expect(a.text).toBe('rpc: POST method required, received GET');
  });

  test('PUT /ext/health → 405; GET /ext/bc/C/rpc → 405 in geth words', async () => {
    expect((await call(app.url, 'PUT', '/ext/health')).status).toBe(405);
    const a = await call(app.url, 'GET', '/ext/bc/C/rpc');
    expect(a.status).toBe(405);
    expect(a.text).toBe('method not allowed');
  });

  test('POST to a GET-only health path → 405 with Allow: GET', async () => {
    const a = await call(app.url, 'POST', '/ext/health/readiness', { headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(a.status).toBe(405);
    expect(a.headers.allow).toBe('GET');
    expect(a.json()).toEqual({ message: expect.stringContaining('GET'), statusCode: 405, error: 'Method Not Allowed' });
  });

  test.each([
    ['/ext/bc/P', undefined, 'rpc: unrecognized Content-Type: '],
    ['/ext/bc/P', 'text/plain', 'rpc: unrecognized Content-Type: text/plain'],
    ['/ext/bc/C/rpc', undefined, 'invalid content type, only application/json is supported'],
    ['/ext/bc/C/rpc', 'application/x-www-form-urlencoded', 'invalid content type, only application/json is supported'],
  ])('POST %s with content type %s → 415', async (path, type, text) => {
    const headers: Record<string, string> = type === undefined ? {} : { 'content-type': type };
    const a = await call(app.url, 'POST', path, { headers, body: JSON.stringify(c('platform.getBlock')) });
    expect(a.status).toBe(415);
    expect(a.text).toBe(text);
    expect(up.requests).toHaveLength(0);
  });

  test('a body over 1 MiB → 413', async () => {
    const a = await rpc(app.url, '/ext/bc/P', c('platform.getBlock', { pad: 'x'.repeat(1024 * 1024) }));
    expect(a.status).toBe(413);
    expect(a.json().error.code).toBe(-32600);
    expect(up.requests).toHaveLength(0);
  });

  test.each([
    ['/ext/bc/P', 'gzip'],
    ['/ext/bc/C/rpc', 'br'],
    ['/ext/info', 'x-made-up'],
  ])('POST %s with content-encoding %s → 415 saying to send it uncompressed, nothing upstream', async (path, encoding) => {
    const { gzipSync } = await import('node:zlib');
    const a = await call(app.url, 'POST', path, {
      headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      body: gzipSync(JSON.stringify(c('platform.getBlock'))),
    });
    expect(a.status).toBe(415);
    expect(a.headers['accept-encoding']).toBe('identity');
    expect(a.json().error).toMatchObject({ code: -32600, message: 'content-encoding is not supported here; send the body uncompressed' });
    expect(up.requests).toHaveLength(0);
  });

  test.each([
    ['/ext/bc/not-an-id/rpc', 'a cb58 blockchain id or the alias C'],
    ['/ext/bc/C/validators', 'a cb58 blockchain id'],
    ['/ext/bc/C', 'a cb58 blockchain id'],
  ])('POST %s → 400 naming blockchainID', async (path, rule) => {
    const a = await rpc(app.url, path, c('eth_chainId', []));
    expect(a.status).toBe(400);
    expect(a.json().error.message).toBe(`blockchainID must be ${rule}${path.endsWith('/C') ? ', X or P' : ''}`);
    expect(up.requests).toHaveLength(0);
  });

  test('paths the node does not have fall through', async () => {
    expect((await rpc(app.url, '/ext/bc/P/extra', c('platform.getBlock'))).json()).toEqual({ fellThrough: true });
    expect((await rpc(app.url, '/ext/admin', c('admin.lockProfile'))).json()).toEqual({ fellThrough: true });
  });
});

describe('batches', () => {
  test('each call is checked and sent on its own; answers come back in request order', async () => {
    const raw =
      '[{"jsonrpc":"2.0","id":1,"method":"platform.getBlock","params":{"blockID":"x"}},' +
      '{"jsonrpc":"2.0","id":2,"method":"platform.nope"},' +
      '{"jsonrpc":"2.0","method":"platform.getCurrentSupply","params":{}},' +
      '5,' +
      '{"jsonrpc":"2.0","id":"x","method":"platform.getBalance","params":{"addresses":[]}},' +
      ' {"jsonrpc":"2.0", "id":99999999999999999999 ,"method":"platform.getBlockByHeight","params":{"height":1}} ]';
    const a = await rpc(app.url, '/ext/bc/P', raw);
    expect(a.status).toBe(200);
    expect(a.headers.deprecation).toBe('true');
    expect(up.requests.map((r) => r.body).sort()).toEqual(
      [
        '{"jsonrpc":"2.0","id":1,"method":"platform.getBlock","params":{"blockID":"x"}}',
        '{"jsonrpc":"2.0","method":"platform.getCurrentSupply","params":{}}',
        '{"jsonrpc":"2.0","id":"x","method":"platform.getBalance","params":{"addresses":[]}}',
        '{"jsonrpc":"2.0", "id":99999999999999999999 ,"method":"platform.getBlockByHeight","params":{"height":1}}',
      ].sort(),
    );
    expect(a.json()).toEqual([
      { jsonrpc: '2.0', result: { method: 'platform.getBlock', path: '/ext/bc/P' }, id: 1 },
      { jsonrpc: '2.0', error: { code: -32000, message: 'rpc: can\'t find method "platform.Nope"', data: null }, id: 2 },
      { jsonrpc: '2.0', error: { code: -32600, message: 'a JSON-RPC request must be a JSON object', data: null }, id: null },
      { jsonrpc: '2.0', result: { method: 'platform.getBalance', path: '/ext/bc/P' }, id: 'x' },
      { jsonrpc: '2.0', result: { method: 'platform.getBlockByHeight', path: '/ext/bc/P' }, id: 1e20 },
    ]);
  });

  test('an empty batch and an oversized batch are refused whole', async () => {
    const empty = await rpc(app.url, '/ext/bc/P', []);
    expect(empty.json()).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'empty batch', data: null }, id: null });
    const big = await rpc(app.url, '/ext/bc/P', Array.from({ length: 101 }, (_, i) => c('platform.getBlock', {}, i)));
    expect(big.json().error).toEqual({ code: -32600, message: 'batch too large: at most 100 calls', data: null });
    expect(up.requests).toHaveLength(0);
  });

  test('a batch of notifications gets an empty answer', async () => {
    const a = await rpc(app.url, '/ext/bc/X', [{ jsonrpc: '2.0', method: 'avm.getHeight' }, { jsonrpc: '2.0', method: 'avm.getTxFee' }]);
    expect(a.status).toBe(200);
    expect(a.text).toBe('');
    expect(up.requests).toHaveLength(2);
  });

  test('geth-style batch on /rpc', async () => {
    const a = await rpc(app.url, '/ext/bc/C/rpc', [c('eth_chainId', [], 1), c('eth_nope', [], 2)]);
    expect(a.json()).toEqual([
      { jsonrpc: '2.0', result: { method: 'eth_chainId', path: '/ext/bc/C/rpc' }, id: 1 },
      { jsonrpc: '2.0', error: { code: -32601, message: 'the method eth_nope does not exist/is not available' }, id: 2 },
    ]);
  });

  test('when every forwarded call fails the same way the batch takes that status', async () => {
    const noNode = await startProxy({ upstreams: {} });
    try {
      const a = await rpc(noNode.url, '/ext/bc/P', [c('platform.getBlock', {}, 1), c('platform.getBlock', {}, 2)]);
      expect(a.status).toBe(503);
      expect(a.json().map((r: { id: number; error: { message: string } }) => [r.id, r.error.message])).toEqual([
        [1, 'the node upstream is not configured (set upstreams.node)'],
        [2, 'the node upstream is not configured (set upstreams.node)'],
      ]);
    } finally {
      await noNode.close();
    }
  });

  test('a call the upstream answers with a non-JSON error becomes a JSON-RPC error in the batch', async () => {
    up.handle = (req, res) => {
      if (req.body.includes('"id":2')) {
        res.writeHead(502, { 'content-type': 'text/html' });
        return void res.end('<h1>bad gateway</h1>');
      }
      nodeLike(req, res);
    };
    const a = await rpc(app.url, '/ext/bc/P', [c('platform.getBlock', {}, 1), c('platform.getBlock', {}, 2)]);
    expect(a.status).toBe(200);
    expect(a.json()[1]).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'the node upstream answered HTTP 502', data: null }, id: 2 });
  });
});

describe('publicMode', () => {
  test.each(['info.getNodeID', 'info.getNodeIP', 'info.getVMs'])('%s is refused without reaching the node', async (method) => {
    const a = await rpc(publicApp.url, '/ext/info', c(method));
    expect(a.status).toBe(200);
    expect(a.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: `${method} is node-specific and unavailable on this public server`, data: null },
      id: 1,
    });
    expect(up.requests).toHaveLength(0);
  });

  test('the JSON-RPC health API is refused', async () => {
    for (const method of ['health.health', 'health.readiness', 'health.liveness']) {
      const a = await rpc(publicApp.url, '/ext/health', c(method));
      expect(a.json().error).toEqual({ code: -32000, message: 'the health API is node-specific and unavailable on this public server', data: null });
    }
    expect(up.requests).toHaveLength(0);
  });

  test.each(['/ext/health', '/ext/health/health', '/ext/health/readiness', '/ext/health/liveness?tag=C'])('GET %s → 404 in the Data API shape', async (path) => {
    const a = await call(publicApp.url, 'GET', path);
    expect(a.status).toBe(404);
    expect(a.json()).toEqual({ message: 'the health API is node-specific and unavailable on this public server', statusCode: 404, error: 'Not Found' });
    expect(up.requests).toHaveLength(0);
  });

  test('other info methods are still served', async () => {
    const a = await rpc(publicApp.url, '/ext/info', c('info.getNetworkID'));
    expect(a.json().result.method).toBe('info.getNetworkID');
  });
});
