// Following a source chain's accepted blocks live. Each new head is handled in order: any blocks
// between it and the last one reported (a head the node skipped announcing) are fetched by range
// first, then the head's own logs by its hash, from the node that announced it, retried while the
// node says it does not have them yet (after Helicon a block is announced before it is executed,
// protocol.md §11). The socket is watched: a close, a failed call, a head backlog over its cap or
// a node whose tip moves while no head arrives ends the subscription with one onDrop, after which
// the engine catches up from its checkpoint and subscribes again.
import type { SourceBlock } from '../ports.js';
import type { Head, LiveChannel, OpenLiveChannel } from './live-channel.js';
import type { RpcLog } from './decode.js';

export interface LiveOptions {
  /** How often the socket is probed (eth_blockNumber) in ms (default 15,000). */
  readonly livenessIntervalMs?: number;
  /** Heads waiting to be handled before the subscription is dropped for catch-up (default 256). */
  readonly maxLiveBacklog?: number;
  /** A gap between heads wider than this is left to the engine's catch-up (default 1,024 blocks). */
  readonly maxLiveGap?: number;
  /** Tries of a live block's logs while the node does not have them yet (default 8, from 100 ms doubling to 2 s). */
  readonly liveFetchAttempts?: number;
  readonly liveFetchDelayMs?: number;
}

// What a node says about a block it announced but cannot serve yet: "unknown block" / "header not
// found" from geth-style EVMs, and the not-yet-executed answers of streaming asynchronous
// execution (Helicon). On avalanchego v1.14.2 (no Helicon) an announced block is already executed,
// so these are never met there.
const NOT_YET = /not (yet )?(been )?executed|not executed yet|unknown block|header not found|block not found|missing trie node/i;

export function isNotYetError(err: unknown): boolean {
  return NOT_YET.test(err instanceof Error ? `${err.message} ${(err as { details?: string }).details ?? ''}` : String(err));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface FollowHeads {
  readonly open: OpenLiveChannel;
  logsOfBlock(channel: LiveChannel, hash: `0x${string}`): Promise<RpcLog[]>;
  decode(logs: readonly RpcLog[]): SourceBlock[];
  gap(from: number, to: number): Promise<SourceBlock[]>;
  readonly options: LiveOptions;
  readonly handlers: { onBlock(block: SourceBlock): void; onDrop(reason: Error): void };
}

export function followHeads(f: FollowHeads): () => void {
  const interval = f.options.livenessIntervalMs ?? 15_000;
  const maxBacklog = f.options.maxLiveBacklog ?? 256;
  const maxGap = f.options.maxLiveGap ?? 1_024;
  const attempts = f.options.liveFetchAttempts ?? 8;
  const firstDelay = f.options.liveFetchDelayMs ?? 100;
  let stopped = false;
  let dropped = false;
  let channel: LiveChannel | undefined;
  let last: number | undefined;
  const pending: Head[] = [];
  let working = false;
  let headsSinceProbe = 0;
  let stalledProbes = 0;
  let lastTip: number | undefined;
  let probing = false;

  const timer = setInterval(() => void probe(), interval);
  timer.unref?.();

  function end(): void {
    clearInterval(timer);
    pending.length = 0;
    channel?.close();
  }

  function drop(reason: unknown): void {
    if (stopped || dropped) return;
    dropped = true;
    end();
    f.handlers.onDrop(reason instanceof Error ? reason : new Error(String(reason)));
  }

  const live = (): boolean => !stopped && !dropped;

  async function logsOf(ch: LiveChannel, head: Head): Promise<RpcLog[]> {
    let delay = firstDelay;
    for (let attempt = 1; ; attempt++) {
      try {
        return await f.logsOfBlock(ch, head.hash);
      } catch (err) {
        if (attempt >= attempts || !isNotYetError(err) || !live()) throw err;
        await sleep(delay);
        delay = Math.min(delay * 2, 2_000);
      }
    }
  }

  async function handle(ch: LiveChannel, head: Head): Promise<void> {
    if (last !== undefined && head.number <= last) return;
    if (last !== undefined && head.number > last + 1) {
      if (head.number - last - 1 > maxGap) throw new Error(`${head.number - last - 1} blocks were not announced (after ${last}); catching up instead`);
      for (const block of await f.gap(last + 1, head.number - 1)) {
        if (!live()) return;
        f.handlers.onBlock(block);
      }
    }
    const blocks = f.decode(await logsOf(ch, head));
    if (!live()) return;
    const foreign = blocks.find((b) => b.hash !== head.hash || b.number !== head.number);
    if (foreign) throw new Error(`logs asked for block ${head.number} (${head.hash}) came from block ${foreign.number} (${foreign.hash})`);
    f.handlers.onBlock({ number: head.number, hash: head.hash, messages: blocks[0]?.messages ?? [] });
    last = head.number;
  }

  async function pump(ch: LiveChannel): Promise<void> {
    if (working) return;
    working = true;
    try {
      while (live() && pending.length > 0) await handle(ch, pending.shift()!);
    } catch (err) {
      drop(err);
    } finally {
      working = false;
    }
  }

  async function probe(): Promise<void> {
    const ch = channel;
    if (!ch || !live() || probing) return;
    probing = true;
    try {
      let timeout: NodeJS.Timeout | undefined;
      const tip = await Promise.race([
        ch.request<string>('eth_blockNumber', []).then((n) => Number(BigInt(n))),
        new Promise<never>((_, reject) => {
          timeout = setTimeout(() => reject(new Error(`the WebSocket did not answer eth_blockNumber within ${interval} ms`)), interval);
        }),
      ]).finally(() => clearTimeout(timeout));
      const quiet = headsSinceProbe === 0 && pending.length === 0 && !working;
      // Twice in a row the node's tip moved while no head came: the subscription is dead.
      stalledProbes = quiet && lastTip !== undefined && tip > lastTip ? stalledProbes + 1 : 0;
      headsSinceProbe = 0;
      lastTip = tip;
      if (stalledProbes >= 2) drop(new Error(`the node is at block ${tip} but no new head arrived for ${2 * interval} ms`));
    } catch (err) {
      drop(err);
    } finally {
      probing = false;
    }
  }

  try {
    const ch = f.open();
    channel = ch;
    ch.subscribeHeads(
      (head) => {
        if (!live()) return;
        headsSinceProbe++;
        pending.push(head);
        if (pending.length > maxBacklog) return drop(new Error(`more than ${maxBacklog} live blocks waiting; catching up instead`));
        void pump(ch);
      },
      (error) => drop(error),
    ).catch(drop);
  } catch (err) {
    queueMicrotask(() => drop(err));
  }

  return () => {
    if (stopped) return;
    stopped = true;
    end();
  };
}
