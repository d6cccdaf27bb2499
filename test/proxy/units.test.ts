// The small pieces the router is built from: error bodies, address and value rules, request targets,
// batch splitting and path patterns.
import { describe, expect, test } from 'vitest';
import { dataApiError, jsonRpcError, metricsApiError, ProxyConfigError, createProxyRouter } from '../../src/proxy/index.js';
import { isChainAddress, isDecimalChainId, isNodeIdPart } from '../../src/proxy/param-rules.js';
import { PathPattern } from '../../src/proxy/path-pattern.js';
import { QueryParams, faithfulTarget } from '../../src/proxy/request-target.js';
import { splitTopLevelArray } from '../../src/proxy/rpc-body.js';
import { AVAX_ADDR, FUJI_ADDR, NODE } from './fixtures.js';

describe('error shapes', () => {
  test('Data API: message is a string, error the reason phrase', () => {
    expect(dataApiError(400, 'pageSize must be …')).toEqual({ message: 'pageSize must be …', statusCode: 400, error: 'Bad Request' });
    expect(dataApiError(503, 'x').error).toBe('Service Unavailable');
    expect(dataApiError(429, 'x').error).toBe('Too Many Requests');
  });
  test('Metrics API: message is always an array', () => {
    expect(metricsApiError(400, 'one')).toEqual({ message: ['one'], statusCode: 400, error: 'Bad Request' });
    expect(metricsApiError(502, ['a', 'b'])).toEqual({ message: ['a', 'b'], statusCode: 502, error: 'Bad Gateway' });
  });
  test('JSON-RPC: avalanchego’s shape with data null', () => {
    expect(jsonRpcError(3, -32000, 'boom')).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'boom', data: null }, id: 3 });
  });
});

describe('chain addresses', () => {
  test('chain addresses need the network’s prefix and 20 bytes', () => {
    expect(isChainAddress(`P-${AVAX_ADDR}`, 'mainnet')).toBe(true);
    expect(isChainAddress(`X-${FUJI_ADDR}`, 'testnet')).toBe(true);
    expect(isChainAddress(FUJI_ADDR, 'mainnet')).toBe(false);
    // 21 bytes, valid checksum
    expect(isChainAddress('avax1qqqsyqcyq5rqwzqfpg9scrgwpugpzysnzsqrew7c', 'mainnet')).toBe(false);
  });
});

describe('value rules', () => {
  test('EVM chain ids are decimal without leading zeros, up to 2^256-1', () => {
    expect(isDecimalChainId('43114')).toBe(true);
    expect(isDecimalChainId((2n ** 256n - 1n).toString())).toBe(true);
    expect(isDecimalChainId((2n ** 256n).toString())).toBe(false);
    expect(isDecimalChainId('0')).toBe(false);
    expect(isDecimalChainId('0x1')).toBe(false);
  });
  test('node id parts: pieces of NodeID- and base58', () => {
    for (const ok of ['NodeID-', 'eID', 'D-7Xh', NODE, NODE.slice(3, 12), '7Xhw']) expect(isNodeIdPart(ok), ok).toBe(true);
    for (const bad of ['', 'NodeID-0', 'x-y', 'NodeId-', 'abc_', '--']) expect(isNodeIdPart(bad), bad).toBe(false);
  });
});

describe('request targets', () => {
  test('allowed characters and escapes stay, others are encoded as the bytes they were', () => {
    expect(faithfulTarget("/v1/chains?a=b&c=d:e@f/g,h;i+j!k$l'm(n)o*p~")).toBe("/v1/chains?a=b&c=d:e@f/g,h;i+j!k$l'm(n)o*p~");
    expect(faithfulTarget('/p?x=%41%zz%')).toBe('/p?x=%41%25zz%25');
    expect(faithfulTarget('/p?x="<>\\`')).toBe('/p?x=%22%3C%3E%5C%60');
    expect(faithfulTarget('/p?x=\u00e9')).toBe('/p?x=%E9');
  });
  test('query parsing: + is a space, repeated names keep every value, bad escapes stay raw', () => {
    const q = QueryParams.parse('a=1+2&b=%41&a=3&flag&bad=%zz&=v');
    expect(q.getAll('a')).toEqual(['1 2', '3']);
    expect(q.getAll('b')).toEqual(['A']);
    expect(q.getAll('flag')).toEqual(['']);
    expect(q.getAll('bad')).toEqual(['%zz']);
    expect(q.names()).toEqual(['a', 'b', 'flag', 'bad', '']);
  });
});

describe('batch splitting keeps each element’s source text', () => {
  test.each([
    ['[]', []],
    ['[1]', ['1']],
    [' [ {"a":[1,{"b":"],}"}]} , "x\\"]," ,null,[ ] ] ', ['{"a":[1,{"b":"],}"}]}', '"x\\"],"', 'null', '[ ]']],
  ])('%s', (text, parts) => {
    expect(splitTopLevelArray(text)).toEqual(parts);
  });
});

describe('path patterns', () => {
  const p = new PathPattern('/v1/chains/{chainId}/addresses/{address}/balances:listErc1155');
  test('literal segments, including the colon, must match exactly', () => {
    expect(p.match('/v1/chains/1/addresses/0xab/balances:listErc1155')).toEqual({ ok: true, params: { chainId: '1', address: '0xab' } });
    expect(p.match('/v1/chains/1/addresses/0xab/balances:listErc1155/')).not.toBeNull();
    expect(p.match('/v1/chains/1/addresses/0xab/balances%3AlistErc1155')).toBeNull();
    expect(p.match('/v1/chains/1/addresses/0xab/balances:listErc20')).toBeNull();
    expect(p.match('/v1/chains//addresses/0xab/balances:listErc1155')).toBeNull();
  });
  test('parameters are percent-decoded; a bad escape names the parameter', () => {
    expect(p.match('/v1/chains/4%33/addresses/0xab/balances:listErc1155')).toEqual({ ok: true, params: { chainId: '43', address: '0xab' } });
    expect(p.match('/v1/chains/%E0%A4/addresses/0xab/balances:listErc1155')).toEqual({ ok: false, param: 'chainId' });
  });
});

describe('options', () => {
  test('bad upstream URLs and numbers are refused when the router is created', () => {
    expect(() => createProxyRouter({ upstreams: { dataApi: 'not a url' } })).toThrow(ProxyConfigError);
    expect(() => createProxyRouter({ upstreams: { node: 'ftp://example.com' } })).toThrow(/upstreams.node/);
    expect(() => createProxyRouter({ upstreams: { dataApi: 'http://x.example/?key=1' } })).toThrow(/query/);
    expect(() => createProxyRouter({ upstreams: {}, timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => createProxyRouter({ upstreams: {}, rateLimit: { requestsPerMinute: -1 } })).toThrow(/requestsPerMinute/);
  });
});
