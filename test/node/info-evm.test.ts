// The node client's info and EVM warp groups, and what every group shares: one transport, one
// URL check, one error naming the method (and, for the node's operator only, the URL).
import { sha256 } from '@noble/hashes/sha2.js';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeError } from '../../src/node/errors.js';
import { EvmWarpClient } from '../../src/node/evm.js';
import { InfoClient, rememberNetworkId } from '../../src/node/info.js';
import { PChainClient } from '../../src/node/pchain.js';
import { JsonRpcTransport } from '../../src/node/transport.js';
import { parseNodeUrl } from '../../src/node/url.js';
import { untilAborted } from '../../src/util/abortable.js';
import { idToString } from '../../src/warp/cb58.js';
import { bytesTo0xHex } from '../../src/warp/hex.js';
import { refusedUrl, rejectionOf, startRpcServer, type Reply, type RpcCall, type RpcServer } from './rpc-server.js';

const CHAIN = sha256(new TextEncoder().encode('chain'));
const MESSAGE_ID = sha256(new TextEncoder().encode('message'));
const EVM_PATH = `/ext/bc/${idToString(CHAIN)}/rpc`;

let server: RpcServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handle: (call: RpcCall, index: number) => Reply | Promise<Reply>): Promise<RpcServer> {
  server = await startRpcServer(handle, ['/ext/bc/P', '/ext/info', EVM_PATH]);
  return server;
}

const nodeError = (promise: Promise<unknown>): Promise<NodeError> => rejectionOf(promise, NodeError);

describe('parseNodeUrl', () => {
  it('normalizes a base URL: no trailing slash, no credentials, query or fragment', () => {
    expect(parseNodeUrl('http://127.0.0.1:9650/')).toBe('http://127.0.0.1:9650');
    expect(parseNodeUrl('https://user:secret@node.example/api//?x=1#f')).toBe('https://node.example/api');
  });

  it('refuses what is not an http(s) URL, naming the setting', () => {
    expect(() => parseNodeUrl('ws://127.0.0.1:9650', '--node')).toThrow("--node 'ws://127.0.0.1:9650' must be http:// or https://");
    expect(() => parseNodeUrl('not a url', 'confirmWithNode')).toThrow("confirmWithNode 'not a url' is not a URL");
    expect(() => new PChainClient({ nodeBaseUrl: 'ftp://node' })).toThrow(/^P-Chain node URL 'ftp:\/\/node' must be http/);
  });
});

describe('InfoClient', () => {
  it('reads info.getNetworkID (a json.Uint32 string) and info.isBootstrapped at /ext/info', async () => {
    const s = await serve(({ method, params }) => {
      if (method === 'info.getNetworkID') return { result: { networkID: '5' } };
      return { result: { isBootstrapped: params.chain === 'P' } };
    });
    const info = new InfoClient({ nodeBaseUrl: s.url });
    expect(await info.getNetworkId()).toBe(5);
    expect(await info.isBootstrapped('P')).toBe(true);
    expect(await info.isBootstrapped('X')).toBe(false);
    expect(s.calls).toEqual([
      { method: 'info.getNetworkID', params: {}, path: '/ext/info' },
      { method: 'info.isBootstrapped', params: { chain: 'P' }, path: '/ext/info' },
      { method: 'info.isBootstrapped', params: { chain: 'X' }, path: '/ext/info' },
    ]);
  });

  it('refuses an answer that is not a network ID or a boolean, naming the method', async () => {
    const s = await serve(({ method }) => (method === 'info.getNetworkID' ? { result: { networkID: '0x5' } } : { result: { isBootstrapped: 'yes' } }));
    const info = new InfoClient({ nodeBaseUrl: s.url });
    const bad = await nodeError(info.getNetworkId());
    expect(bad.kind).toBe('bad-response');
    expect(bad.message).toBe('P-Chain node call info.getNetworkID failed: unexpected result: networkID is not a network ID: "0x5"');
    expect((await nodeError(info.isBootstrapped('P'))).message).toMatch(/info\.isBootstrapped failed: unexpected result: isBootstrapped is not a boolean/);
  });
});

describe('info.peers', () => {
  const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
  const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';

  it('reads each peer’s NodeID and publicIP (the address it signed), never ip (the connection’s remote end)', async () => {
    const s = await serve(() => ({
      result: {
        numPeers: '4',
        peers: [
          { ip: '10.0.0.1:53122', publicIP: '203.0.113.7:9651', nodeID: A, version: 'avalanchego/1.14.0' },
          { ip: '[2001:db8::2]:40000', publicIP: '[2001:db8::1]:9651', nodeID: B },
          // An IPv4-mapped address is the IPv4 address; "" is netip.AddrPort's zero value: no claim.
          { ip: '10.0.0.3:1', publicIP: '[::ffff:198.51.100.4]:9653', nodeID: A },
          { ip: '10.0.0.4:1', publicIP: '', nodeID: B },
        ],
      },
    }));
    const info = new InfoClient({ nodeBaseUrl: s.url });
    const { peers, skipped } = await info.peers([A]);
    expect(skipped).toBe(0);
    expect(peers).toEqual([
      { nodeId: A, publicAddress: { host: '203.0.113.7', port: 9651 } },
      { nodeId: B, publicAddress: { host: '2001:db8::1', port: 9651 } },
      { nodeId: A, publicAddress: { host: '198.51.100.4', port: 9653 } },
      { nodeId: B },
    ]);
    expect(s.calls).toEqual([{ method: 'info.peers', params: { nodeIDs: [A] }, path: '/ext/info' }]);
  });

  it('skips entries that are not peers, keeps the rest, and refuses an answer without a peer list', async () => {
    const s = await serve((_call, i) =>
      i === 0
        ? { result: { peers: [null, { nodeID: 'NodeID-nope' }, { nodeID: A, publicIP: 'not an address' }, { nodeID: B, publicIP: '1.2.3.4:0' }, 7] } }
        : i === 1
          ? { result: { numPeers: '0', peers: null } }
          : { result: { peers: 'many' } },
    );
    const info = new InfoClient({ nodeBaseUrl: s.url });
    expect(await info.peers()).toEqual({ peers: [{ nodeId: A }, { nodeId: B }], skipped: 3 });
    expect(await info.peers()).toEqual({ peers: [], skipped: 0 });
    const bad = await nodeError(info.peers());
    expect(bad.kind).toBe('bad-response');
    expect(bad.message).toMatch(/info\.peers failed: unexpected result: peers is not a list/);
  });
});

describe('rememberNetworkId', () => {
  it('asks once for concurrent callers; one caller leaving does not end the call for the others', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    let asked!: () => void;
    const called = new Promise<void>((r) => (asked = r));
    const s = await serve(async () => {
      asked();
      await answered;
      return { result: { networkID: '12345' } };
    });
    const networkId = rememberNetworkId(new InfoClient({ nodeBaseUrl: s.url }));
    const leaving = new AbortController();
    const first = untilAborted(networkId(), leaving.signal).catch((e: unknown) => e);
    const second = networkId();
    await called;
    const reason = new Error('the first request’s deadline');
    leaving.abort(reason);
    expect(await first).toBe(reason);
    answer();
    expect(await second).toBe(12345);
    // Remembered: a later caller gets it without a call.
    expect(await networkId()).toBe(12345);
    expect(s.calls).toHaveLength(1);
  });

  it('does not remember a failure: the next caller asks again', async () => {
    const s = await serve((_call, i) => (i === 0 ? { error: { code: -32000, message: 'not now' } } : { result: { networkID: '1' } }));
    const networkId = rememberNetworkId(new InfoClient({ nodeBaseUrl: s.url }));
    expect((await nodeError(networkId())).kind).toBe('rpc');
    expect(await networkId()).toBe(1);
    expect(s.calls).toHaveLength(2);
  });
});

describe('EvmWarpClient', () => {
  it('calls warp_getMessage and warp_getMessageSignature at /ext/bc/{chain}/rpc with the message ID', async () => {
    const bytes = Uint8Array.of(1, 2, 3);
    const s = await serve(({ method }) => (method === 'warp_getMessage' ? { result: bytesTo0xHex(bytes) } : { result: null }));
    const evm = new EvmWarpClient({ nodeBaseUrl: s.url });
    expect(await evm.getMessage(CHAIN, MESSAGE_ID)).toEqual(bytes);
    // null: the node has no signature; the caller decides what that means.
    expect(await evm.getMessageSignature(CHAIN, MESSAGE_ID)).toEqual(new Uint8Array(0));
    expect(s.calls).toEqual([
      { method: 'warp_getMessage', params: [idToString(MESSAGE_ID)], path: EVM_PATH },
      { method: 'warp_getMessageSignature', params: [idToString(MESSAGE_ID)], path: EVM_PATH },
    ]);
  });

  it('reports a node error and an answer that is not hex as NodeErrors; only atUrl() names the node', async () => {
    const s = await serve(({ method }) => (method === 'warp_getMessage' ? { error: { code: -32000, message: 'message not found' } } : { result: 'zz' }));
    const evm = new EvmWarpClient({ nodeBaseUrl: s.url, label: 'node' });
    const refused = await nodeError(evm.getMessage(CHAIN, MESSAGE_ID));
    expect(refused).toMatchObject({ kind: 'rpc', method: 'warp_getMessage', nodeMessage: 'message not found' });
    expect(refused.message).toBe('node call warp_getMessage failed: node answered error -32000: message not found');
    expect(refused.message).not.toContain('127.0.0.1');
    expect(refused.atUrl()).toBe(`warp_getMessage at ${s.url}${EVM_PATH}: the node answered: message not found`);
    const garbled = await nodeError(evm.getMessageSignature(CHAIN, MESSAGE_ID));
    expect(garbled.kind).toBe('bad-response');
    expect(garbled.message).toMatch(/^node call warp_getMessageSignature failed: unexpected result: /);
  });
});

describe('one transport for every group', () => {
  it('serves the P-Chain, info and EVM groups alike, and names an unreachable node only to its operator', async () => {
    const transport = new JsonRpcTransport({ nodeBaseUrl: await refusedUrl(), retries: 0 });
    const groups = [new PChainClient(transport).getHeight(), new InfoClient(transport).getNetworkId(), new EvmWarpClient(transport).getMessage(CHAIN, MESSAGE_ID)];
    const errors = await Promise.all(groups.map(nodeError));
    expect(errors.map((e) => [e.method, e.kind])).toEqual([
      ['platform.getHeight', 'unreachable'],
      ['info.getNetworkID', 'unreachable'],
      ['warp_getMessage', 'unreachable'],
    ]);
    expect(errors[0]!.message).toBe('P-Chain node call platform.getHeight failed: node unreachable: ECONNREFUSED');
    expect(errors[1]!.atUrl()).toBe(`info.getNetworkID: node unreachable at ${transport.baseUrl}/ext/info: ECONNREFUSED`);
  });
});
