// A destination chain's epoch through the node client: proposervm.getCurrentEpoch on a node
// (/ext/bc/{chainID}/proposervm) or at a chain's own base URL, and info.upgrades' epoch duration.
// Whatever keeps the epoch from being read is one DestinationChainError naming the chain.
import { sha256 } from '@noble/hashes/sha2.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DestinationChainError } from '../../src/node/errors.js';
import { InfoClient } from '../../src/node/info.js';
import { ProposerVmClient } from '../../src/node/proposervm.js';
import { JsonRpcTransport } from '../../src/node/transport.js';
import { idToString } from '../../src/warp/cb58.js';
import { refusedUrl, rejectionOf, startRpcServer, type Reply, type RpcCall, type RpcServer } from './rpc-server.js';

const CHAIN = sha256(new TextEncoder().encode('destination'));
const ON_NODE = `/ext/bc/${idToString(CHAIN)}/proposervm`;
const EPOCH = { number: '56', startTime: '1755802182', pChainHeight: '21857141' };

let server: RpcServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handle: (call: RpcCall) => Reply, paths = [ON_NODE, '/chain/proposervm', '/ext/info']): Promise<RpcServer> {
  server = await startRpcServer(handle, paths);
  return server;
}

const transport = (url: string): JsonRpcTransport => new JsonRpcTransport({ nodeBaseUrl: url, retries: 0, timeoutMs: 2_000 });

describe('proposervm.getCurrentEpoch', () => {
  it('on a node, at /ext/bc/{chainID}/proposervm; at a chain base URL, at /proposervm', async () => {
    const s = await serve(() => ({ result: EPOCH }));
    expect(await new ProposerVmClient(transport(s.url), CHAIN).getCurrentEpoch()).toEqual({ number: 56, startTime: 1755802182, pChainHeight: 21857141 });
    expect(await new ProposerVmClient(transport(`${s.url}/chain`), CHAIN, { atChainUrl: true }).getCurrentEpoch()).toMatchObject({ pChainHeight: 21857141 });
    expect(s.calls.map((c) => [c.path, c.method])).toEqual([
      [ON_NODE, 'proposervm.getCurrentEpoch'],
      ['/chain/proposervm', 'proposervm.getCurrentEpoch'],
    ]);
  });

  it('every failure is a DestinationChainError naming the chain, never the URL', async () => {
    const cases: [string, Reply][] = [
      ['an error answer', { error: { code: -32000, message: "couldn't get current epoch: not found" } }],
      ['an answer that is not an epoch', { result: { number: 'soon' } }],
      ['a node that does not run the chain (404)', { raw: '404 page not found', status: 404 }],
    ];
    for (const [what, reply] of cases) {
      const s = await serve(() => reply);
      const err = await rejectionOf(new ProposerVmClient(transport(s.url), CHAIN).getCurrentEpoch(), DestinationChainError);
      expect(err.chainId, what).toBe(idToString(CHAIN));
      expect(err.message, what).toMatch(new RegExp(`^destination chain ${idToString(CHAIN)}: its current epoch could not be read \\(proposervm.getCurrentEpoch\\): `));
      expect(err.message).not.toContain(s.url);
      await s.close();
      server = undefined;
    }
    const down = await rejectionOf(new ProposerVmClient(transport(await refusedUrl()), CHAIN).getCurrentEpoch(), DestinationChainError);
    expect(down.message).toMatch(/node unreachable/);
    expect(down.failure.kind).toBe('unreachable');
  });

  it('the caller’s deadline ends the call with its own reason', async () => {
    const s = await serve(() => ({ hang: true }));
    const reason = new Error('deadline');
    const call = new ProposerVmClient(transport(s.url), CHAIN).getCurrentEpoch({ signal: AbortSignal.abort(reason) });
    await expect(call).rejects.toBe(reason);
  });
});

describe('info.upgrades', () => {
  it('graniteEpochDuration (nanoseconds) as milliseconds; null before Granite', async () => {
    let upgrades: Record<string, unknown> = { graniteTime: '2025-11-19T16:00:00Z', graniteEpochDuration: 300_000_000_000 };
    const s = await serve(() => ({ result: upgrades }));
    const info = new InfoClient(transport(s.url));
    expect(await info.epochDurationMs()).toBe(300_000);
    upgrades = { etnaTime: '2024-12-16T17:00:00Z' };
    expect(await info.epochDurationMs()).toBeNull();
    expect(s.calls.map((c) => [c.path, c.method])).toEqual([
      ['/ext/info', 'info.upgrades'],
      ['/ext/info', 'info.upgrades'],
    ]);
  });
});
