// Sending a signed transaction and reading what the node said. Nodes word their refusals in
// geth's terms (core/txpool errors, which avalanchego's EVMs keep); each maps to what a delivery
// does next, and anything else is an error whose transaction may or may not have gone out.
import type { Hex } from '../ports.js';
import type { RpcRequest } from './chain.js';

type BroadcastResult =
  /** Accepted now, or the node already had it. */
  | { readonly kind: 'sent' }
  /** The key's nonce is past this one: a transaction at it was mined (ours or another). */
  | { readonly kind: 'nonce-too-low' }
  /** A transaction at this nonce is pending and this one does not raise its fees enough. */
  | { readonly kind: 'underpriced'; readonly reason: string }
  /** The key cannot pay gasLimit × maxFeePerGas. */
  | { readonly kind: 'insufficient-funds'; readonly reason: string }
  /** The node refused it for another reason: it is not in any pool. */
  | { readonly kind: 'refused'; readonly reason: string }
  /** No answer (a transport failure or a timeout): it may have reached the node. */
  | { readonly kind: 'unknown'; readonly reason: string };

function messageOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const details = (err as { details?: unknown }).details;
  return typeof details === 'string' && details.length > 0 ? details : err.message.split('\n')[0]!;
}

/** Whether a viem error carries a JSON-RPC error answer (the node spoke) rather than a transport failure. */
function isRpcAnswer(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number' && code < 0 && code > -33000) return true;
    if (e.name === 'RpcRequestError') return true;
  }
  return false;
}

export function classifyBroadcastError(err: unknown): BroadcastResult {
  const reason = messageOf(err);
  const text = `${reason} ${err instanceof Error ? err.message : ''}`.toLowerCase();
  if (text.includes('already known') || text.includes('known transaction')) return { kind: 'sent' };
  if (text.includes('nonce too low')) return { kind: 'nonce-too-low' };
  if (text.includes('underpriced') || text.includes('replacement transaction')) return { kind: 'underpriced', reason };
  if (text.includes('insufficient funds')) return { kind: 'insufficient-funds', reason };
  if (isRpcAnswer(err)) return { kind: 'refused', reason };
  return { kind: 'unknown', reason };
}

export async function broadcast(request: RpcRequest, serialized: Hex, signal?: AbortSignal): Promise<BroadcastResult> {
  try {
    await request<Hex>('eth_sendRawTransaction', [serialized], signal);
    return { kind: 'sent' };
  } catch (err) {
    if (signal?.aborted) throw err;
    return classifyBroadcastError(err);
  }
}
