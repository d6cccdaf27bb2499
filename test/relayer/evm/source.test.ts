import { custom, type Hex } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyBroadcastError } from '../../../src/relayer/evm/broadcast.js';
import type { RpcLog } from '../../../src/relayer/evm/decode.js';
import { isNotYetError } from '../../../src/relayer/evm/live.js';
import type { Head, LiveChannel } from '../../../src/relayer/evm/live-channel.js';
import { createEvmSource, isTooMuchError } from '../../../src/relayer/evm/source.js';
import type { SourceBlock } from '../../../src/relayer/ports.js';
import { RpcError } from './fake-node.js';
import { MESSENGER, SOURCE_CB58, sendWarpLog, teleporterMessage, unsignedOf } from './fixtures.js';

const hashOf = (n: number): Hex => `0x${n.toString(16).padStart(64, 'b')}`;
const chain = { blockchainId: SOURCE_CB58, rpcUrl: 'http://127.0.0.1:1/rpc', wsUrl: 'ws://127.0.0.1:1/ws', teleporterAddress: MESSENGER };

/** A chain with one Teleporter message in each of `blocks`, refusing eth_getLogs over more than `maxBlocks` blocks. */
function chainWithLogs(blocks: number[], maxBlocks = Infinity) {
  const logs: RpcLog[] = blocks.map((n, i) => sendWarpLog(unsignedOf(teleporterMessage({ messageNonce: BigInt(i + 1) })), { block: n, logIndex: 0 }));
  const ranges: [number, number][] = [];
  const getLogs = (filter: { fromBlock?: Hex; toBlock?: Hex; blockHash?: Hex; topics: Hex[] }): RpcLog[] => {
    expect(filter.topics[1]).toBe(`0x${MESSENGER.slice(2).padStart(64, '0')}`);
    if (filter.blockHash) return logs.filter((l) => l.blockHash === filter.blockHash);
    const [from, to] = [Number(filter.fromBlock), Number(filter.toBlock)];
    ranges.push([from, to]);
    if (to - from + 1 > maxBlocks) throw new RpcError(`requested too many blocks from ${from} to ${to}, maximum is set to ${maxBlocks}`);
    return logs.filter((l) => Number(l.blockNumber) >= from && Number(l.blockNumber) <= to);
  };
  const transport = custom({
    async request({ method, params }: { method: string; params?: unknown }) {
      if (method === 'eth_getLogs') return getLogs((params as [never])[0]);
      if (method === 'eth_blockNumber') return '0x64';
      throw new RpcError(`no ${method}`, -32601);
    },
  });
  return { transport, ranges, getLogs };
}

class FakeChannel implements LiveChannel {
  onHead?: (head: Head) => void;
  onError?: (error: Error) => void;
  closed = false;
  tip = 0;
  /** Errors eth_getLogs by hash throws before answering, in order. */
  notYet: Error[] = [];
  constructor(private readonly getLogs: (filter: never) => RpcLog[]) {}
  async request<T>(method: string, params: readonly unknown[]): Promise<T> {
    if (method === 'eth_blockNumber') return `0x${this.tip.toString(16)}` as T;
    const failure = this.notYet.shift();
    if (failure) throw failure;
    return this.getLogs(params[0] as never) as T;
  }
  async subscribeHeads(onHead: (head: Head) => void, onError: (error: Error) => void): Promise<void> {
    this.onHead = onHead;
    this.onError = onError;
  }
  close(): void {
    this.closed = true;
  }
  head(n: number): void {
    this.tip = Math.max(this.tip, n);
    this.onHead!({ number: n, hash: hashOf(n) });
  }
}

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

const stops: (() => void)[] = [];
afterEach(() => stops.splice(0).forEach((stop) => stop()));

describe('an EVM source', () => {
  it('returns the blocks of a range that hold messages, halving a range the node refuses as too large', async () => {
    const { transport, ranges } = chainWithLogs([3, 7, 8, 20], 4);
    const source = createEvmSource(chain, { transport });
    const blocks = await source.blocksInRange(1, 20);
    expect(blocks.map((b) => b.number)).toEqual([3, 7, 8, 20]);
    expect(blocks.every((b) => b.messages.length === 1 && b.messages[0]!.blockNumber === b.number)).toBe(true);
    expect(ranges[0]).toEqual([1, 20]);
    expect(ranges.filter(([f, t]) => t - f + 1 <= 4).length).toBeGreaterThan(0);
    expect(await source.head()).toBe(100);
    await expect(source.blocksInRange(5, 4)).rejects.toThrow(RangeError);
  });

  it('reports every live block in order, empty ones too, filling a gap between heads by range', async () => {
    const { transport, getLogs } = chainWithLogs([11, 14]);
    const channel = new FakeChannel(getLogs);
    const source = createEvmSource(chain, { transport, openLiveChannel: () => channel });
    const blocks: SourceBlock[] = [];
    const drops: Error[] = [];
    stops.push(source.subscribe({ onBlock: (b) => blocks.push(b), onDrop: (e) => drops.push(e) }));
    await until(() => channel.onHead !== undefined);
    channel.head(10);
    channel.head(11);
    channel.head(11); // a repeat is ignored
    channel.head(15); // 12..14 never announced: 14 has a message
    await until(() => blocks.length >= 4);
    expect(blocks.map((b) => [b.number, b.messages.length])).toEqual([[10, 0], [11, 1], [14, 1], [15, 0]]);
    expect(blocks[0]!.hash).toBe(hashOf(10));
    expect(drops).toEqual([]);
  });

  it('asks again for a live block’s logs while the node has not executed it (Helicon), then reports it', async () => {
    const { transport, getLogs } = chainWithLogs([5]);
    const channel = new FakeChannel(getLogs);
    channel.notYet = [new RpcError('block not executed yet'), new RpcError('unknown block')];
    const source = createEvmSource(chain, { transport, openLiveChannel: () => channel, liveFetchDelayMs: 1 });
    const blocks: SourceBlock[] = [];
    stops.push(source.subscribe({ onBlock: (b) => blocks.push(b), onDrop: () => expect.unreachable() }));
    await until(() => channel.onHead !== undefined);
    channel.head(5);
    await until(() => blocks.length === 1);
    expect(blocks[0]!.messages).toHaveLength(1);
  });

  it('drops once, and closes the socket, on a socket error, a failing fetch or a backlog over its cap', async () => {
    for (const trigger of ['socket', 'fetch', 'backlog'] as const) {
      const { transport, getLogs } = chainWithLogs([]);
      const channel = new FakeChannel(getLogs);
      if (trigger === 'fetch') channel.notYet = [new RpcError('something else broke')];
      const source = createEvmSource(chain, { transport, openLiveChannel: () => channel, maxLiveBacklog: 2 });
      const drops: Error[] = [];
      stops.push(source.subscribe({ onBlock: () => undefined, onDrop: (e) => drops.push(e) }));
      await until(() => channel.onHead !== undefined);
      if (trigger === 'socket') {
        channel.onError!(new Error('socket closed'));
        channel.onError!(new Error('socket closed'));
      } else if (trigger === 'fetch') {
        channel.head(1);
      } else {
        channel.notYet = Array.from({ length: 8 }, () => new RpcError('unknown block'));
        for (let n = 1; n <= 5; n++) channel.head(n);
      }
      await until(() => drops.length > 0);
      await new Promise((r) => setTimeout(r, 30));
      expect(drops, trigger).toHaveLength(1);
      expect(channel.closed).toBe(true);
    }
  });

  it('drops when the node’s tip moves twice while no head arrives, and not after unsubscribing', async () => {
    const { transport, getLogs } = chainWithLogs([]);
    const channel = new FakeChannel(getLogs);
    const source = createEvmSource(chain, { transport, openLiveChannel: () => channel, livenessIntervalMs: 20 });
    const drops: Error[] = [];
    stops.push(source.subscribe({ onBlock: () => undefined, onDrop: (e) => drops.push(e) }));
    await until(() => channel.onHead !== undefined);
    const moving = setInterval(() => channel.tip++, 5);
    await until(() => drops.length === 1);
    clearInterval(moving);
    expect(drops[0]!.message).toMatch(/no new head/);

    const quiet = new FakeChannel(getLogs);
    const other = createEvmSource(chain, { transport, openLiveChannel: () => quiet });
    const late: Error[] = [];
    const unsubscribe = other.subscribe({ onBlock: () => undefined, onDrop: (e) => late.push(e) });
    await until(() => quiet.onHead !== undefined);
    unsubscribe();
    quiet.onError!(new Error('closed by us'));
    expect(late).toEqual([]);
    expect(quiet.closed).toBe(true);
  });

  it('a chain without a WebSocket URL drops at once, saying so', async () => {
    const { transport } = chainWithLogs([]);
    const source = createEvmSource({ ...chain, wsUrl: undefined }, { transport });
    const drops: Error[] = [];
    stops.push(source.subscribe({ onBlock: () => undefined, onDrop: (e) => drops.push(e) }));
    await until(() => drops.length === 1);
    expect(drops[0]!.message).toMatch(/no wsUrl/);
    expect(() => createEvmSource({ ...chain, teleporterAddress: '0x1234' })).toThrow(/not an address/);
    expect(() => createEvmSource({ ...chain, wsUrl: 'http://x' })).toThrow(/ws: or wss:/);
  });
});

describe('what nodes say, classified', () => {
  it('range refusals, not-yet-executed answers and broadcast refusals', () => {
    expect(isTooMuchError(new Error('query returned more than 10000 results'))).toBe(true);
    expect(isTooMuchError(new Error('requested too many blocks from 1 to 5000, maximum is set to 2048'))).toBe(true);
    expect(isTooMuchError(new Error('connection refused'))).toBe(false);
    expect(isNotYetError(new Error('unknown block'))).toBe(true);
    expect(isNotYetError(new Error('block 0xab not executed yet'))).toBe(true);
    expect(isNotYetError(new Error('execution reverted'))).toBe(false);
    expect(classifyBroadcastError(new RpcError('nonce too low: next nonce 5, tx nonce 4'))).toEqual({ kind: 'nonce-too-low' });
    expect(classifyBroadcastError(new RpcError('already known'))).toEqual({ kind: 'sent' });
    expect(classifyBroadcastError(new RpcError('replacement transaction underpriced')).kind).toBe('underpriced');
    expect(classifyBroadcastError(new RpcError('insufficient funds for gas * price + value')).kind).toBe('insufficient-funds');
    expect(classifyBroadcastError(new RpcError('intrinsic gas too low')).kind).toBe('refused');
    expect(classifyBroadcastError(new Error('fetch failed')).kind).toBe('unknown');
  });
});
