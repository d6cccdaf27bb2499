// One WebSocket connection to a source chain's node for live blocks: the `newHeads` subscription
// and the calls about the blocks it announces go over the same socket, so a block's logs are
// asked of the node that announced it (protocol.md §11: after Helicon only that node is sure to
// have executed it). viem's reconnect is off: a dropped socket is reported once and the engine
// catches up from its checkpoint before subscribing again, so no gap goes unnoticed.
import { webSocket } from 'viem';

export interface Head {
  readonly number: number;
  readonly hash: `0x${string}`;
}

export interface LiveChannel {
  request<T>(method: string, params: readonly unknown[]): Promise<T>;
  /** Subscribes to new heads; `onError` is called when the socket closes or the subscription fails. */
  subscribeHeads(onHead: (head: Head) => void, onError: (error: Error) => void): Promise<void>;
  close(): void;
}

export type OpenLiveChannel = () => LiveChannel;

let channels = 0;

/** A LiveChannel over viem's WebSocket transport to `url`. */
export function webSocketLiveChannel(url: string, timeoutMs: number): LiveChannel {
  // A key of its own: viem caches sockets by URL and key, and this one must not be shared.
  const transport = webSocket(url, { reconnect: false, keepAlive: { interval: 10_000 }, retryCount: 0, timeout: timeoutMs, key: `warpgate-relayer-${++channels}` })({});
  let closed = false;
  return {
    request: <T>(method: string, params: readonly unknown[]) => transport.request({ method, params } as never) as Promise<T>,
    async subscribeHeads(onHead, onError) {
      await transport.value!.subscribe({
        params: ['newHeads'],
        onData: (data: { result?: { number?: string; hash?: string } }) => {
          const header = data.result;
          if (!header?.number || !header.hash) return onError(new Error('a newHeads notification without number and hash'));
          onHead({ number: Number(BigInt(header.number)), hash: header.hash.toLowerCase() as `0x${string}` });
        },
        onError: (error: Error) => onError(error),
      });
    },
    close() {
      if (closed) return;
      closed = true;
      void transport.value!.getRpcClient().then(
        (client) => client.close(),
        () => undefined,
      );
    },
  };
}
