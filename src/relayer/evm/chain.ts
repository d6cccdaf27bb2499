// The chain an EVM source or destination talks to, and the JSON-RPC plumbing both share: a viem
// transport per URL, every call under a per-chain concurrency limit and a deadline.
import { createPublicClient, http, type PublicClient, type Transport } from 'viem';
import { untilAborted } from '../../util/abortable.js';
import { parseCb58Id } from '../../warp/index.js';
import type { Hex } from '../ports.js';
import { createLimiter, type Limiter } from './limit.js';

export interface EvmChain {
  /** cb58, as avalanchego prints it. */
  readonly blockchainId: string;
  readonly rpcUrl: string;
  readonly wsUrl?: string;
  /** The TeleporterMessenger's address on this chain. */
  readonly teleporterAddress: Hex;
}

export class EvmChainError extends Error {
  override readonly name = 'EvmChainError';
}

/** Checks a chain's static description; throws EvmChainError naming what is wrong. */
export function checkChain(chain: EvmChain): { readonly blockchainIdBytes: Uint8Array; readonly teleporterAddress: Hex } {
  let blockchainIdBytes: Uint8Array;
  try {
    blockchainIdBytes = parseCb58Id(chain.blockchainId, 'blockchainId');
  } catch (err) {
    throw new EvmChainError(`chain ${chain.blockchainId}: ${(err as Error).message}`);
  }
  if (!/^0x[0-9a-fA-F]{40}$/.test(chain.teleporterAddress)) throw new EvmChainError(`chain ${chain.blockchainId}: teleporterAddress ${chain.teleporterAddress} is not an address`);
  for (const [what, url, schemes] of [['rpcUrl', chain.rpcUrl, ['http:', 'https:']], ['wsUrl', chain.wsUrl, ['ws:', 'wss:']]] as const) {
    if (url === undefined) continue;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new EvmChainError(`chain ${chain.blockchainId}: ${what} ${url} is not a URL`);
    }
    if (!(schemes as readonly string[]).includes(parsed.protocol)) throw new EvmChainError(`chain ${chain.blockchainId}: ${what} must be ${schemes.join(' or ')}`);
  }
  return { blockchainIdBytes, teleporterAddress: chain.teleporterAddress.toLowerCase() as Hex };
}

export interface RpcOptions {
  /** Calls in flight at once to this chain's node (default 4). */
  readonly maxConcurrentRpc?: number;
  /** A call's deadline in ms (default 15,000). */
  readonly requestTimeoutMs?: number;
  /** Tests: the transport to use instead of HTTP to rpcUrl. */
  readonly transport?: Transport;
}

export type RpcRequest = <T>(method: string, params: readonly unknown[], signal?: AbortSignal) => Promise<T>;

/** A limited, deadline-bound JSON-RPC caller over one transport, and the viem client behind it. */
export function createRpc(url: string, options: RpcOptions): { readonly request: RpcRequest; readonly client: PublicClient; readonly limiter: Limiter } {
  const timeout = options.requestTimeoutMs ?? 15_000;
  // Retries are the engine's business (bounded backoff over whole operations), not the transport's.
  const transport = options.transport ?? http(url, { timeout, retryCount: 0 });
  const client = createPublicClient({ transport });
  const limiter = createLimiter(options.maxConcurrentRpc ?? 4);
  const request: RpcRequest = (method, params, signal) => {
    signal?.throwIfAborted();
    return untilAborted(
      limiter.run(() => client.request({ method, params } as never, { retryCount: 0 }) as Promise<never>),
      signal,
    );
  };
  return { request, client, limiter };
}
