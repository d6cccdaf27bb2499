import { sha256 } from '@noble/hashes/sha2.js';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeError, UnfinalizedHeightError, UnknownChainError, UnknownSubnetError } from '../../src/node/errors.js';
import { PChainClient } from '../../src/node/pchain.js';
import type { NodeCallEvent } from '../../src/node/transport.js';
import { classifyError } from '../../src/server/errors.js';
import { idToString, PRIMARY_NETWORK_ID } from '../../src/warp/cb58.js';
import { bytesToHex, concatBytes, hexToBytes } from '../../src/warp/hex.js';
import { fixtureValidatorsAtResult, nodeIdFor, vector } from '../validators/fixture.js';
import { refusedUrl, rejectionOf, startRpcServer, type Reply, type RpcCall, type RpcServer } from './rpc-server.js';

const SUBNET = sha256(new TextEncoder().encode('subnet'));
const CHAIN = sha256(new TextEncoder().encode('chain'));
const TX = sha256(new TextEncoder().encode('tx'));

let server: RpcServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handle: (call: RpcCall, index: number) => Reply | Promise<Reply>): Promise<RpcServer> {
  server = await startRpcServer(handle);
  return server;
}

const rejection = (promise: Promise<unknown>): Promise<NodeError> => rejectionOf(promise, NodeError);

describe('PChainClient', () => {
  it('calls the node at /ext/bc/P and reads typed results', async () => {
    const s = await serve(({ method }) => {
      switch (method) {
        case 'platform.getHeight':
          return { result: { height: '1234' } };
        case 'platform.getProposedHeight':
          return { result: { height: 1230 } };
        case 'platform.getValidatorsAt':
          return { result: fixtureValidatorsAtResult() };
        case 'platform.validatedBy':
          return { result: { subnetID: idToString(SUBNET) } };
        default:
          return { error: { code: -32000, message: `rpc: can't find method "${method}"` } };
      }
    });
    const client = new PChainClient({ nodeBaseUrl: `${s.url}/` });
    expect(client.url).toBe(`${s.url}/ext/bc/P`);
    expect(await client.getHeight()).toBe(1234);
    expect(await client.getProposedHeight()).toBe(1230);
    const entries = await client.getValidatorsAt(77, SUBNET);
    expect(entries.map((e) => e.weight).sort()).toEqual([100n, 200n, 300n, 50n].sort());
    expect(s.calls[2]).toEqual({ method: 'platform.getValidatorsAt', params: { height: 77, subnetID: idToString(SUBNET) } });
    await client.getValidatorsAt('proposed', SUBNET);
    expect(s.calls[3]!.params.height).toBe('proposed');
    expect(await client.validatedBy(CHAIN)).toEqual(SUBNET);
    expect(s.calls[4]).toEqual({ method: 'platform.validatedBy', params: { blockchainID: idToString(CHAIN) } });
  });

  it('does not retry a JSON-RPC error answer', async () => {
    const s = await serve(() => ({ error: { code: -32000, message: 'failed to get validator set at 99: height not found' } }));
    const client = new PChainClient({ nodeBaseUrl: s.url, retries: 3, backoffBaseMs: 1 });
    const err = await rejection(client.getValidatorsAt(99, SUBNET));
    expect(err.kind).toBe('rpc');
    expect(err.rpcCode).toBe(-32000);
    expect(err.method).toBe('platform.getValidatorsAt');
    expect(classifyError(err).status).toBe(502);
    expect(err.message).toBe(
      'P-Chain node call platform.getValidatorsAt failed: node answered error -32000: failed to get validator set at 99: height not found',
    );
    expect(s.calls).toHaveLength(1);
  });

  it('retries a refused connection, then reports the node unreachable', async () => {
    const events: NodeCallEvent[] = [];
    const client = new PChainClient({ nodeBaseUrl: await refusedUrl(), retries: 2, backoffBaseMs: 5, observe: (e) => events.push(e) });
    const err = await rejection(client.getHeight());
    expect(events).toMatchObject([{ method: 'platform.getHeight', attempts: 3, error: 'unreachable' }]);
    expect(err.kind).toBe('unreachable');
    expect(classifyError(err).status).toBe(503);
    // The message reaches clients (503 bodies, /ready): it names the failure, never the node's URL.
    expect(err.message).toBe('P-Chain node call platform.getHeight failed: node unreachable: ECONNREFUSED (3 attempts)');
  });

  it('retries a dropped connection and succeeds on the next attempt', async () => {
    const s = await serve((_call, i) => (i === 0 ? { drop: true } : { result: { height: '5' } }));
    const events: NodeCallEvent[] = [];
    const client = new PChainClient({
      nodeBaseUrl: s.url,
      retries: 2,
      backoffBaseMs: 5,
      observe: (e) => {
        events.push(e);
        throw new Error('a broken metrics hook changes nothing');
      },
    });
    expect(await client.getHeight()).toBe(5);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ method: 'platform.getHeight', attempts: 2 });
    expect(events[0]!.error).toBeUndefined();
    expect(s.calls).toHaveLength(2);
  });

  it('times out a node that does not answer, retrying first', async () => {
    const s = await serve(() => ({ hang: true }));
    const client = new PChainClient({ nodeBaseUrl: s.url, timeoutMs: 150, retries: 1, backoffBaseMs: 5 });
    // A hang would fail the generous wait; the node's own timeout is what ends each attempt.
    const err = await rejection(settlesWithin(client.getValidatorsAt(1, SUBNET), 10_000, 'the call to a silent node'));
    expect(err.kind).toBe('timeout');
    expect(classifyError(err).status).toBe(504);
    expect(err.message).toBe('P-Chain node call platform.getValidatorsAt failed: timeout after 150 ms (2 attempts)');
    expect(s.calls).toHaveLength(2);
  });

  it('reports garbage as a bad response without retrying', async () => {
    const s = await serve(() => ({ raw: '<html>bad gateway</html>' }));
    const client = new PChainClient({ nodeBaseUrl: s.url, retries: 2, backoffBaseMs: 1 });
    const err = await rejection(client.getHeight());
    expect(err.kind).toBe('bad-response');
    expect(classifyError(err).status).toBe(502);
    expect(err.message).toMatch(/^P-Chain node call platform.getHeight failed: response is not JSON/);
    expect(s.calls).toHaveLength(1);
  });

  it('reports a wrong path, a wrong result shape and an oversized body as bad responses', async () => {
    const s = await serve(({ method }) => {
      if (method === 'platform.getHeight') return { result: { height: 'soon' } };
      if (method === 'platform.getValidatorsAt') return { result: { [nodeIdFor('A')]: { weight: '-3', publicKey: null } } };
      if (method === 'platform.getBlockchains') return { result: 'x'.repeat(4096) };
      return { chunks: ['{"jsonrpc":"2.0","id":1,"result":"', ...Array.from({ length: 8 }, () => 'y'.repeat(512)), '"}'] };
    });
    const client = new PChainClient({ nodeBaseUrl: s.url, maxResponseBytes: 1024 });
    expect((await rejection(client.getHeight())).message).toMatch(/platform.getHeight failed: unexpected result: .*height 'soon' is not a uint64/);
    const bad = await rejection(client.getValidatorsAt(3, SUBNET));
    expect(bad.kind).toBe('bad-response');
    expect(bad.message).toContain(nodeIdFor('A'));
    const big = await rejection(client.call('platform.getBlockchains'));
    expect(big.message).toBe('P-Chain node call platform.getBlockchains failed: response body larger than 1024 bytes');
    const streamed = await rejection(client.call('platform.getSubnets'));
    expect(streamed.message).toBe('P-Chain node call platform.getSubnets failed: response body larger than 1024 bytes');

    const wrongPath = new PChainClient({ nodeBaseUrl: `${s.url}/not-a-node` });
    const err = await rejection(wrongPath.getHeight());
    expect(err.kind).toBe('bad-response');
    expect(err.message).toMatch(/HTTP 404/);
  });

  it('keeps uint64 values beyond 2^53 exact', async () => {
    const a = nodeIdFor('A');
    const s = await serve(() => ({ rawResult: `{"validators":{"${a}":18446744073709551615}}` }));
    const client = new PChainClient({ nodeBaseUrl: s.url });
    expect(await client.getValidatorsAt(1, SUBNET)).toEqual([{ nodeId: a, weight: 18446744073709551615n, publicKey: null }]);
  });

  it('fills the keys of permissioned-subnet validators from their Primary Network registration', async () => {
    const [a, b] = [nodeIdFor('A'), nodeIdFor('B')];
    const s = await serve(({ params }) => {
      if (params.subnetID === idToString(SUBNET)) {
        return {
          result: {
            validators: [
              { txID: 'x', nodeID: a, weight: '10', startTime: '1', endTime: '2' },
              { txID: 'y', nodeID: b, weight: '20', startTime: '1', endTime: '2' },
            ],
          },
        };
      }
      // Only A has a BLS key on the Primary Network.
      return { result: { validators: [{ txID: 'z', nodeID: a, weight: '2000', delegatorWeight: '0', signer: { publicKey: `0x${vector.validators[0]!.publicKey}`, proofOfPossession: '0x' } }] } };
    });
    const client = new PChainClient({ nodeBaseUrl: s.url });
    const entries = await client.getCurrentValidators(SUBNET);
    expect(entries).toEqual([
      { nodeId: a, weight: 10n, publicKey: hexToBytes(vector.validators[0]!.publicKey) },
      { nodeId: b, weight: 20n, publicKey: null },
    ]);
    expect(s.calls[1]).toEqual({
      method: 'platform.getCurrentValidators',
      params: { subnetID: idToString(PRIMARY_NETWORK_ID), nodeIDs: [a, b] },
    });

    // The Primary Network itself needs no second call.
    await client.getCurrentValidators(PRIMARY_NETWORK_ID);
    expect(s.calls).toHaveLength(3);
  });

  it('reads getSubnet, getTx (hex checksum checked, json) and getTxStatus', async () => {
    const txBytes = hexToBytes('00000000002200000005');
    const withChecksum = concatBytes(txBytes, sha256(txBytes).subarray(-4));
    const s = await serve(({ method, params }) => {
      if (method === 'platform.getSubnet') {
        return { result: { isPermissioned: false, controlKeys: [], threshold: '0', conversionID: idToString(TX), managerChainID: idToString(CHAIN), managerAddress: '0x0feedc0de0000000000000000000000000000000' } };
      }
      if (method === 'platform.getTx' && params.encoding === 'hex') return { result: { tx: `0x${bytesToHex(withChecksum)}`, encoding: 'hex' } };
      if (method === 'platform.getTx') return { rawResult: '{"encoding":"json","tx":{"unsignedTx":{"weight":18446744073709551615,"networkID":5}}}' };
      return { result: { status: 'Committed' } };
    });
    const client = new PChainClient({ nodeBaseUrl: s.url });
    const subnet = await client.getSubnet(SUBNET);
    expect(subnet.isPermissioned).toBe(false);
    expect(subnet.conversionId).toEqual(TX);
    expect(subnet.managerChainId).toEqual(CHAIN);
    expect(bytesToHex(subnet.managerAddress)).toBe('0feedc0de0000000000000000000000000000000');
    expect(await client.getTx(TX, 'hex')).toEqual(txBytes);
    expect(await client.getTx(TX, 'json')).toEqual({ unsignedTx: { weight: '18446744073709551615', networkID: 5 } });
    expect(await client.getTxStatus(TX)).toEqual({ status: 'Committed' });
    expect(s.calls.map((c) => c.params.txID).filter(Boolean)).toEqual([idToString(TX), idToString(TX), idToString(TX)]);
  });

  it('rejects a tx whose hex checksum is wrong', async () => {
    const s = await serve(() => ({ result: { tx: '0x0000000000220000000511223344', encoding: 'hex' } }));
    const err = await rejection(new PChainClient({ nodeBaseUrl: s.url }).getTx(TX, 'hex'));
    expect(err.message).toMatch(/platform.getTx failed: unexpected result: hex tx has a bad checksum/);
  });

  it('rejects an answer to another request', async () => {
    const s = await serve(() => ({ raw: '{"jsonrpc":"2.0","id":"someone-else","result":{"height":"1"}}' }));
    const err = await rejection(new PChainClient({ nodeBaseUrl: s.url }).getHeight());
    expect(err.kind).toBe('bad-response');
    expect(err.message).toMatch(/response id "someone-else" does not match request id \d+/);
  });

  it('answers many concurrent calls', async () => {
    const s = await serve(() => ({ result: { height: '9' } }));
    const client = new PChainClient({ nodeBaseUrl: s.url });
    const heights = await Promise.all(Array.from({ length: 50 }, () => client.getHeight()));
    expect(heights.every((h) => h === 9)).toBe(true);
  });
});

/** Settles as `p` does, or fails the test after a generous `ms` (an event-driven wait, not a timing assertion). */
function settlesWithin<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

async function waitUntil(what: string, probe: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('PChainClient under a caller deadline (AbortSignal)', () => {
  it('ends the attempt under way when the caller aborts, and rejects with the caller’s reason, no retry', async () => {
    let seen!: () => void;
    const called = new Promise<void>((r) => (seen = r));
    const s = await serve(() => {
      seen();
      return { hang: true };
    });
    const events: NodeCallEvent[] = [];
    // The node's own timeout is far away: only the caller's signal can end this call.
    const client = new PChainClient({ nodeBaseUrl: s.url, timeoutMs: 120_000, retries: 2, observe: (e) => events.push(e) });
    const ctl = new AbortController();
    const reason = new Error('the caller’s deadline');
    const pending = client.getValidatorsAt(5, SUBNET, { signal: ctl.signal }).then(
      () => 'resolved',
      (err: unknown) => err,
    );
    await called;
    await waitUntil('the stub to hold the request', () => s.holding === 1);
    ctl.abort(reason);
    expect(await settlesWithin(pending, 10_000, 'the aborted call')).toBe(reason);
    expect(s.calls).toHaveLength(1);
    expect(events).toMatchObject([{ method: 'platform.getValidatorsAt', attempts: 1, error: 'aborted' }]);
    // The request to the node is abandoned too: its connection is released.
    await waitUntil('the held request to be released', () => s.holding === 0);
  });

  it('stops in the backoff between retries when the caller aborts', async () => {
    let seen!: () => void;
    const dropped = new Promise<void>((r) => (seen = r));
    const s = await serve(() => {
      seen();
      return { drop: true };
    });
    // A long backoff: without the signal the next attempt would come much later.
    const client = new PChainClient({ nodeBaseUrl: s.url, retries: 5, backoffBaseMs: 60_000, backoffMaxMs: 60_000 });
    const ctl = new AbortController();
    const pending = client.getHeight({ signal: ctl.signal }).then(
      () => 'resolved',
      (err: unknown) => err,
    );
    await dropped;
    await new Promise((r) => setTimeout(r, 20)); // into the backoff
    const reason = new Error('deadline');
    ctl.abort(reason);
    expect(await settlesWithin(pending, 10_000, 'the call in its backoff')).toBe(reason);
    expect(s.calls).toHaveLength(1);
  });

  it('does not call the node at all for an already aborted signal', async () => {
    const s = await serve(() => ({ result: { height: '1' } }));
    const reason = new Error('too late');
    await expect(new PChainClient({ nodeBaseUrl: s.url }).getHeight({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(s.calls).toHaveLength(0);
  });
});

describe('avalanchego answers that name a client mistake become typed errors', () => {
  it('getValidatorsAt above the tip → UnfinalizedHeightError with the node’s current height', async () => {
    const subnet = idToString(SUBNET);
    const s = await serve(({ params }) => ({
      error: {
        code: -32000,
        message: `failed to get validator set at ${String(params.height)}: failed to fetch validator set at unfinalized height with SubnetID = ${subnet}: current P-chain height (136) < requested P-Chain height (${String(params.height)})`,
      },
    }));
    const err = await new PChainClient({ nodeBaseUrl: s.url }).getValidatorsAt(999, SUBNET).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnfinalizedHeightError);
    expect(err).toMatchObject({ height: 999, currentHeight: 136 });
    expect((err as Error).message).toBe('999 is above the current P-Chain height 136: there is no validator set at that height yet');
  });

  it('validatedBy of an unknown chain, or of a transaction that is not a chain → UnknownChainError', async () => {
    const chain = idToString(CHAIN);
    for (const message of [`problem retrieving blockchain "${chain}": not found`, `"${chain}" is not a blockchain`]) {
      const s = await serve(() => ({ error: { code: -32000, message } }));
      const err = await new PChainClient({ nodeBaseUrl: s.url }).validatedBy(CHAIN).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnknownChainError);
      expect((err as Error).message).toBe(`source chain ${chain} is not a blockchain the P-Chain knows`);
      await s.close();
      server = undefined;
    }
  });

  it('getSubnet of an unknown subnet → UnknownSubnetError; other errors stay NodeErrors', async () => {
    const s = await serve(({ params }) => ({ error: { code: -32000, message: params.subnetID === idToString(SUBNET) ? 'not found' : 'database closed' } }));
    const client = new PChainClient({ nodeBaseUrl: s.url });
    expect(await client.getSubnet(SUBNET).catch((e: unknown) => e)).toBeInstanceOf(UnknownSubnetError);
    const other = await rejection(client.getSubnet(CHAIN));
    expect(other.kind).toBe('rpc');
    expect(other).not.toBeInstanceOf(UnknownSubnetError);
  });
});
