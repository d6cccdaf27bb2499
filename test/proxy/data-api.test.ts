// Data API read endpoints (seed 000 sections 4.3-4.15): what reaches the upstream, what the
// client gets back, and every rule that stops a request before the upstream sees it.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { ADDR, ADDR2, AVAX_ADDR, C_CHAIN, FUJI_ADDR, FUJI_ADDR2, NODE, NODE2, PRIMARY } from './fixtures.js';
import { call, echoJson, startProxy, startUpstream, type FakeUpstream, type ProxyApp } from './helpers.js';

let up: FakeUpstream;
let app: ProxyApp;

beforeAll(async () => {
  up = await startUpstream();
  app = await startProxy({ upstreams: { dataApi: up.url, apiKey: 'configured-key' }, cacheTtlMs: 0 });
});
afterAll(async () => {
  await app?.close();
  await up?.close();
});
beforeEach(() => {
  up.requests.length = 0;
  up.handle = echoJson;
});

// One valid request per endpoint, including boundary values; each must arrive upstream unchanged.
const FORWARDED: Array<[string, string]> = [
  ['4.3 deployment', `/v1/chains/43114/contracts/${ADDR}/transactions:getDeployment?currency=eur`],
  [
    '4.4 validators, every filter at a boundary',
    `/v1/networks/mainnet/validators?pageToken=t0k&pageSize=100&nodeIds=NodeID-7X,${NODE},eID-,7Xh&sortBy=delegationFee` +
      `&sortOrder=desc&validationStatus=removed&minDelegationCapacity=0&maxDelegationCapacity=720000000000000000` +
      `&minTimeRemaining=0&maxTimeRemaining=2147483647&minFeePercentage=2&maxFeePercentage=100.0` +
      `&minUptimePerformance=0&maxUptimePerformance=99.5&subnetId=${PRIMARY}`,
  ],
  ['4.4 validators, pageSize 1 on fuji', '/v1/networks/fuji/validators?pageSize=1&sortBy=uptimePerformance&subnetId=anything'],
  ['4.5 balances by alias', `/v1/networks/fuji/blockchains/p-chain/balances?blockTimestamp=1700000000&addresses=P-${FUJI_ADDR},${FUJI_ADDR2},X-${FUJI_ADDR}`],
  ['4.5 balances by id', `/v1/networks/mainnet/blockchains/${C_CHAIN}/balances?addresses=${AVAX_ADDR}`],
  ['4.5 balances on testnet', `/v1/networks/testnet/blockchains/x-chain/balances?addresses=X-${FUJI_ADDR}`],
  ['4.6 transfers', `/v1/chains/43114/tokens/${ADDR}/transfers?startBlock=0&endBlock=100&pageSize=5`],
  ['4.7 internals', `/v1/chains/${C_CHAIN}/addresses/${ADDR}/transactions:listInternals?startBlock=7&pageToken=abc`],
  ['4.8 native', `/v1/chains/43113/addresses/${ADDR}/transactions:listNative?endBlock=9&pageSize=100`],
  ['4.9 erc1155', `/v1/chains/43114/addresses/${ADDR}/balances:listErc1155?blockNumber=123&contractAddress=${ADDR2}&pageSize=500`],
  ['native balance', `/v1/chains/43114/addresses/${ADDR}/balances:getNative?currency=usd&blockNumber=1`],
  ['4.10 latest', '/v1/chains/43114/transactions?status=failed&pageSize=10'],
  ['4.11 pending rewards by node', `/v1/networks/mainnet/rewards:listPending?nodeIds=${NODE},${NODE2}&sortOrder=asc`],
  ['4.11 pending rewards by address', `/v1/networks/fuji/rewards:listPending?addresses=P-${FUJI_ADDR}`],
  ['4.11 an empty list is no filter', `/v1/networks/fuji/rewards:listPending?addresses=&nodeIds=${NODE}`],
  ['4.12 validator', `/v1/networks/mainnet/validators/${NODE}?validationStatus=completed&sortOrder=asc&pageSize=3`],
  ['4.13 delegators', `/v1/networks/mainnet/delegators?rewardAddresses=P-${AVAX_ADDR}&nodeIds=${NODE}&delegationStatus=pending&sortOrder=desc`],
  ['4.14 chains', '/v1/chains?network=testnet&feature=teleporter'],
  ['4.14 chains, no query', '/v1/chains'],
  ['4.15 nft token', `/v1/chains/43114/nfts/collections/${ADDR}/tokens/12345678901234567890`],
  ['unknown parameters pass unchanged', '/v1/chains?network=mainnet&extra=1&extra=2&flag&q=a+b%20c'],
  ['a trailing slash is kept', '/v1/chains/'],
];

describe('forwarding', () => {
  test.each(FORWARDED)('%s', async (_name, path) => {
    const a = await call(app.url, 'GET', path, { headers: { 'user-agent': 'test-agent/1', accept: 'application/json' } });
    expect(a.status).toBe(200);
    expect(a.json()).toEqual({ echoed: path });
    expect(up.requests).toHaveLength(1);
    const seen = up.requests[0]!;
    expect(seen.method).toBe('GET');
    expect(seen.url).toBe(path);
    expect(seen.headers['x-glacier-api-key']).toBe('configured-key');
    expect(seen.headers['user-agent']).toBe('test-agent/1');
    expect(seen.headers.accept).toBe('application/json');
  });

  test('characters not allowed on a request line are percent-encoded, escapes kept as sent', async () => {
    const a = await call(app.url, 'GET', '/v1/chains?x=a|b{c}^&y=%7C&z=100%');
    expect(a.status).toBe(200);
    expect(up.requests[0]!.url).toBe('/v1/chains?x=a%7Cb%7Bc%7D%5E&y=%7C&z=100%25');
  });

  test('only allow-listed headers travel upstream; hop-by-hop, cookies and credentials never do', async () => {
    await call(app.url, 'GET', '/v1/chains', {
      headers: {
        accept: 'application/json',
        'accept-language': 'fr',
        'user-agent': 'ua',
        'x-request-id': 'req-1',
        cookie: 'session=secret',
        authorization: 'Bearer secret',
        'proxy-authorization': 'Basic secret',
        'x-forwarded-for': '10.0.0.1',
        te: 'trailers',
        'keep-alive': 'timeout=5',
        'x-custom': 'nope',
      },
    });
    const h = up.requests[0]!.headers;
    expect(h['accept-language']).toBe('fr');
    expect(h['x-request-id']).toBe('req-1');
    for (const name of ['cookie', 'authorization', 'proxy-authorization', 'x-forwarded-for', 'te', 'keep-alive', 'trailer', 'x-custom', 'x-data-api-key']) {
      expect(h[name], name).toBeUndefined();
    }
  });

  test("a client's own key replaces the configured one; x-glacier-api-key wins over x-data-api-key", async () => {
    await call(app.url, 'GET', '/v1/chains', { headers: { 'x-data-api-key': 'client-data-key' } });
    expect(up.requests[0]!.headers['x-glacier-api-key']).toBe('client-data-key');
    expect(up.requests[0]!.headers['x-data-api-key']).toBeUndefined();
    await call(app.url, 'GET', '/v1/chains', { headers: { 'x-data-api-key': 'd', 'x-glacier-api-key': 'g' } });
    expect(up.requests[1]!.headers['x-glacier-api-key']).toBe('g');
  });

  test('without a configured key and without a client key no key header is sent', async () => {
    const bare = await startProxy({ upstreams: { dataApi: up.url } });
    try {
      await call(bare.url, 'GET', '/v1/chains');
      expect(up.requests[0]!.headers['x-glacier-api-key']).toBeUndefined();
    } finally {
      await bare.close();
    }
  });

  test('upstream status, body and content type pass through; internal headers do not', async () => {
    up.handle = (_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'max-age=5',
        'set-cookie': 'a=b',
        'x-internal': 'secret',
      });
      res.end('{"chains":[] }');
    };
    const a = await call(app.url, 'GET', '/v1/chains');
    expect(a.status).toBe(200);
    expect(a.text).toBe('{"chains":[] }');
    expect(a.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(a.headers['cache-control']).toBe('max-age=5');
    expect(a.headers['set-cookie']).toBeUndefined();
    expect(a.headers['x-internal']).toBeUndefined();
  });

  test('HEAD is served like GET without a body', async () => {
    const a = await call(app.url, 'HEAD', '/v1/chains');
    expect(a.status).toBe(200);
    expect(a.text).toBe('');
    expect(up.requests[0]!.method).toBe('GET');
  });

  test.each([
    ['POST', '/v1/chains'],
    ['GET', '/v1/chains/43114/unknown'],
    ['GET', '/v1/signatureAggregator/mainnet/aggregateSignatures/abc'],
    ['POST', '/v1/signatureAggregator/mainnet/aggregateSignatures'],
    ['GET', '/health'],
    ['GET', '/metrics'],
  ])('%s %s is not the proxy’s and falls through', async (method, path) => {
    const a = await call(app.url, method, path);
    expect(a.status).toBe(404);
    expect(a.json()).toEqual({ fellThrough: true });
    expect(up.requests).toHaveLength(0);
  });
});

// [request path, the parameter the 400 must name]
const REJECTED: Array<[string, string]> = [
  ['/v1/networks/mainnett/validators', 'network'],
  ['/v1/networks/Mainnet/delegators', 'network'],
  ['/v1/chains/0/transactions', 'chainId'],
  ['/v1/chains/043114/transactions', 'chainId'],
  ['/v1/chains/c-chain/transactions', 'chainId'],
  [`/v1/chains/${C_CHAIN.slice(0, -1)}x/transactions`, 'chainId'],
  [`/v1/chains/43114/contracts/0x123/transactions:getDeployment`, 'address'],
  [`/v1/chains/43114/contracts/${ADDR}0/transactions:getDeployment`, 'address'],
  [`/v1/chains/43114/contracts/${ADDR}/transactions:getDeployment?currency=btc`, 'currency'],
  ['/v1/networks/mainnet/validators?pageSize=0', 'pageSize'],
  ['/v1/networks/mainnet/validators?pageSize=101', 'pageSize'],
  ['/v1/networks/mainnet/validators?pageSize=ten', 'pageSize'],
  ['/v1/networks/mainnet/validators?pageSize=', 'pageSize'],
  ['/v1/networks/mainnet/validators?pageSize=10&pageSize=20', 'pageSize'],
  ['/v1/networks/mainnet/validators?nodeIds=NodeID-abc,not_a_node', 'nodeIds'],
  ['/v1/networks/mainnet/validators?nodeIds=NodeID-0OIl', 'nodeIds'],
  ['/v1/networks/mainnet/validators?sortBy=name', 'sortBy'],
  ['/v1/networks/mainnet/validators?sortOrder=up', 'sortOrder'],
  ['/v1/networks/mainnet/validators?sortOrder=ASC', 'sortOrder'],
  ['/v1/networks/mainnet/validators?validationStatus=done', 'validationStatus'],
  ['/v1/networks/mainnet/validators?minDelegationCapacity=-1', 'minDelegationCapacity'],
  ['/v1/networks/mainnet/validators?maxDelegationCapacity=720000000000000001', 'maxDelegationCapacity'],
  ['/v1/networks/mainnet/validators?maxDelegationCapacity=1.5', 'maxDelegationCapacity'],
  ['/v1/networks/mainnet/validators?minTimeRemaining=2147483648', 'minTimeRemaining'],
  ['/v1/networks/mainnet/validators?maxTimeRemaining=-5', 'maxTimeRemaining'],
  ['/v1/networks/mainnet/validators?minFeePercentage=1.9', 'minFeePercentage'],
  ['/v1/networks/mainnet/validators?maxFeePercentage=101', 'maxFeePercentage'],
  ['/v1/networks/mainnet/validators?minUptimePerformance=100.5', 'minUptimePerformance'],
  ['/v1/networks/mainnet/validators?maxUptimePerformance=abc', 'maxUptimePerformance'],
  ['/v1/networks/mainnet/validators?sortBy=delegationFee', 'sortBy'],
  [`/v1/networks/mainnet/validators?sortBy=delegationFee&subnetId=${C_CHAIN}`, 'sortBy'],
  [`/v1/networks/fuji/validators?sortBy=delegationFee&subnetId=${PRIMARY}`, 'sortBy'],
  ['/v1/networks/mainnet/blockchains/q-chain/balances', 'blockchainId'],
  ['/v1/networks/mainnet/blockchains/P-Chain/balances', 'blockchainId'],
  [`/v1/networks/mainnet/blockchains/p-chain/balances?addresses=${FUJI_ADDR}`, 'addresses'],
  [`/v1/networks/fuji/blockchains/p-chain/balances?addresses=${FUJI_ADDR.slice(0, -1)}q`, 'addresses'],
  [`/v1/networks/fuji/blockchains/p-chain/balances?addresses=C-${FUJI_ADDR}`, 'addresses'],
  [`/v1/networks/fuji/blockchains/p-chain/balances?addresses=${FUJI_ADDR},`, 'addresses'],
  ['/v1/networks/fuji/blockchains/p-chain/balances?blockTimestamp=-1', 'blockTimestamp'],
  [`/v1/chains/43114/tokens/${ADDR}/transfers?startBlock=x`, 'startBlock'],
  [`/v1/chains/43114/addresses/${ADDR}/transactions:listInternals?endBlock=1.5`, 'endBlock'],
  [`/v1/chains/43114/addresses/${ADDR}/transactions:listNative?pageSize=200`, 'pageSize'],
  [`/v1/chains/43114/addresses/${ADDR}/balances:listErc1155?pageSize=501`, 'pageSize'],
  [`/v1/chains/43114/addresses/${ADDR}/balances:listErc1155?blockNumber=latest`, 'blockNumber'],
  [`/v1/chains/43114/addresses/${ADDR}/balances:listErc1155?contractAddress=0xzz`, 'contractAddress'],
  ['/v1/chains/43114/addresses/0x12/balances:getNative', 'address'],
  ['/v1/chains/43114/transactions?status=pending', 'status'],
  ['/v1/networks/mainnet/rewards:listPending', 'addresses or nodeIds'],
  ['/v1/networks/mainnet/rewards:listPending?sortOrder=asc&addresses=', 'addresses or nodeIds'],
  [`/v1/networks/mainnet/rewards:listPending?nodeIds=${NODE.slice(0, -1)}x`, 'nodeIds'],
  [`/v1/networks/mainnet/rewards:listPending?nodeIds=${NODE}&sortOrder=random`, 'sortOrder'],
  ['/v1/networks/mainnet/validators/NodeID-bad', 'nodeId'],
  [`/v1/networks/mainnet/validators/${NODE.slice(7)}`, 'nodeId'],
  [`/v1/networks/mainnet/validators/${NODE}?validationStatus=x`, 'validationStatus'],
  ['/v1/networks/mainnet/delegators?delegationStatus=removed', 'delegationStatus'],
  ['/v1/networks/mainnet/delegators?rewardAddresses=xyz', 'rewardAddresses'],
  ['/v1/networks/mainnet/delegators?nodeIds=NodeID-', 'nodeIds'],
  ['/v1/chains?network=devnet', 'network'],
  ['/v1/chains?feature=nft', 'feature'],
  ['/v1/chains/43114/nfts/collections/0x1/tokens/1', 'address'],
  ['/v1/networks/%E0%A4%A/validators', 'network'],
];

describe('rules checked before forwarding', () => {
  test.each(REJECTED)('%s → 400 naming %s', async (path, param) => {
    const a = await call(app.url, 'GET', path);
    expect(a.status).toBe(400);
    expect(a.headers['content-type']).toMatch(/^application\/json/);
    const body = a.json();
    expect(body).toEqual({ message: expect.any(String), statusCode: 400, error: 'Bad Request' });
    expect(body.message).toContain(param);
    expect(up.requests).toHaveLength(0);
  });

  test('several violations are all named in the one message', async () => {
    const a = await call(app.url, 'GET', '/v1/networks/mainnet/validators?pageSize=0&sortOrder=up');
    expect(a.status).toBe(400);
    expect(a.json().message).toBe('pageSize must be an integer from 1 to 100; sortOrder must be one of: asc, desc');
  });
});
