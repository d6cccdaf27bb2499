// A source chain's Teleporter messages: `blocksInRange` for catch-up (eth_getLogs of the Warp
// precompile's SendWarpMessage logs whose indexed sender is the messenger), `subscribe` for live
// blocks (new heads over WebSocket, each block's logs fetched by its hash from the same node), and
// `head`. Only accepted blocks are served by avalanchego's EVMs, so nothing here handles reorgs.
import { encodeEventTopics, type Log } from 'viem';
import type { Hex, MessageSource, SourceBlock, SourceMessage } from '../ports.js';
import { SEND_WARP_MESSAGE_EVENT, WARP_PRECOMPILE_ADDRESS } from './abi.js';
import { checkChain, createRpc, type EvmChain, type RpcOptions } from './chain.js';
import { decodeSendWarpMessageLog, type DecodeContext, type RpcLog } from './decode.js';
import { followHeads, type LiveOptions } from './live.js';
import { webSocketLiveChannel, type OpenLiveChannel } from './live-channel.js';

export interface EvmSourceOptions extends RpcOptions, LiveOptions {
  /** A SendWarpMessage log of the messenger that is not a Teleporter message for us (it is skipped). */
  onInvalidLog?(detail: { readonly blockNumber: number; readonly transactionHash: string; readonly reason: string }): void;
  /** Tests: the live channel to use instead of a WebSocket to wsUrl. */
  readonly openLiveChannel?: OpenLiveChannel;
}


// Nodes refuse a range with too many results or blocks in several wordings (geth: "query
// returned more than 10000 results"; avalanchego's EVMs: "requested too many blocks from A to B,
// maximum is set to N"; providers: "exceed", "limit", "range too large").
const TOO_MUCH = /too many|more than|exceed|limit|range too (large|big)|response size/i;

export function isTooMuchError(err: unknown): boolean {
  return TOO_MUCH.test(err instanceof Error ? `${err.message} ${(err as { details?: string }).details ?? ''}` : String(err));
}

/** The messages of `logs` grouped into blocks, ascending, each block's messages in log order. */
export function blocksOfLogs(logs: readonly RpcLog[], context: DecodeContext, onInvalid?: EvmSourceOptions['onInvalidLog']): SourceBlock[] {
  const byNumber = new Map<number, { hash: Hex; messages: { index: number; message: SourceMessage }[] }>();
  for (const raw of logs) {
    const log: Pick<Log, 'topics' | 'data' | 'blockNumber' | 'blockHash' | 'transactionHash' | 'logIndex'> = {
      topics: raw.topics as Log['topics'],
      data: raw.data,
      blockNumber: raw.blockNumber === null ? null : BigInt(raw.blockNumber),
      blockHash: raw.blockHash,
      transactionHash: raw.transactionHash,
      logIndex: raw.logIndex === null ? null : Number(BigInt(raw.logIndex)),
    };
    const decoded = decodeSendWarpMessageLog(log, context);
    if (!decoded.ok) {
      onInvalid?.({ blockNumber: log.blockNumber === null ? -1 : Number(log.blockNumber), transactionHash: log.transactionHash ?? '', reason: decoded.reason });
      continue;
    }
    const { message } = decoded;
    let block = byNumber.get(message.blockNumber);
    if (!block) byNumber.set(message.blockNumber, (block = { hash: message.blockHash, messages: [] }));
    block.messages.push({ index: message.logIndex, message });
  }
  return [...byNumber.entries()]
    .sort(([a], [b]) => a - b)
    .map(([number, block]) => ({ number, hash: block.hash, messages: block.messages.sort((a, b) => a.index - b.index).map((m) => m.message) }));
}

export function createEvmSource(chain: EvmChain, options: EvmSourceOptions = {}): MessageSource {
  const { blockchainIdBytes, teleporterAddress } = checkChain(chain);
  const context: DecodeContext = { blockchainId: blockchainIdBytes, teleporterAddress };
  const { request } = createRpc(chain.rpcUrl, options);
  const topics = encodeEventTopics({ abi: [SEND_WARP_MESSAGE_EVENT], eventName: 'SendWarpMessage', args: { sender: teleporterAddress } });
  const filter = { address: WARP_PRECOMPILE_ADDRESS, topics };

  async function logsInRange(from: number, to: number, signal?: AbortSignal): Promise<RpcLog[]> {
    try {
      return await request<RpcLog[]>('eth_getLogs', [{ ...filter, fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}` }], signal);
    } catch (err) {
      if (to <= from || !isTooMuchError(err)) throw err;
      // Halve until the node accepts; the halves are fetched one after the other (order, and the limit).
      const middle = from + Math.floor((to - from) / 2);
      return [...(await logsInRange(from, middle, signal)), ...(await logsInRange(middle + 1, to, signal))];
    }
  }

  async function blocksInRange(from: number, to: number, signal?: AbortSignal): Promise<SourceBlock[]> {
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 0 || to < from) throw new RangeError(`bad block range [${from}, ${to}]`);
    return blocksOfLogs(await logsInRange(from, to, signal), context, options.onInvalidLog);
  }

  const head = async (signal?: AbortSignal): Promise<number> => Number(BigInt(await request<Hex>('eth_blockNumber', [], signal)));

  const openLiveChannel: OpenLiveChannel =
    options.openLiveChannel ??
    (() => {
      if (!chain.wsUrl) throw new Error(`chain ${chain.blockchainId} has no wsUrl to watch live blocks with`);
      return webSocketLiveChannel(chain.wsUrl, options.requestTimeoutMs ?? 15_000);
    });

  return {
    blockchainId: chain.blockchainId,
    head,
    blocksInRange,
    subscribe(handlers) {
      return followHeads({
        open: openLiveChannel,
        // Logs of one live block, asked of the node that announced it.
        logsOfBlock: (channel, hash) => channel.request<RpcLog[]>('eth_getLogs', [{ ...filter, blockHash: hash }]),
        decode: (logs) => blocksOfLogs(logs, context, options.onInvalidLog),
        gap: (from, to) => blocksInRange(from, to),
        options,
        handlers,
      });
    },
  };
}

