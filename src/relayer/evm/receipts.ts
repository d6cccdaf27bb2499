// Waiting for a delivery's outcome: a receipt for one of the hashes broadcast at a nonce, or the
// nonce used up by a transaction that is not ours (a previous run's unrecorded one, another
// process sharing the key), or the deadline. A reverted transaction is not the end of the story:
// Teleporter reverts a delivery of a message someone else delivered first, so `messageReceived`
// decides between delivered-by-other and failed.
import type { DeliveryOutcome, Hex, SourceMessage } from '../ports.js';
import type { RpcRequest } from './chain.js';
import { sleep } from '../../util/abortable.js';

export type Waited = { readonly kind: 'outcome'; readonly outcome: DeliveryOutcome } | { readonly kind: 'nonce-taken' } | { readonly kind: 'timeout' };

interface RpcReceipt {
  readonly transactionHash: Hex;
  readonly status: Hex;
  readonly gasUsed: Hex;
  readonly effectiveGasPrice?: Hex;
}

interface WaitContext {
  readonly request: RpcRequest;
  messageReceived(id: Hex, signal?: AbortSignal): Promise<boolean>;
  readonly pollIntervalMs: number;
}

async function outcomeOf(ctx: WaitContext, message: SourceMessage, receipt: RpcReceipt, signal?: AbortSignal): Promise<DeliveryOutcome> {
  const txHash = receipt.transactionHash.toLowerCase() as Hex;
  if (BigInt(receipt.status) === 1n) {
    return { kind: 'delivered', txHash, gasUsed: BigInt(receipt.gasUsed), effectiveGasPrice: BigInt(receipt.effectiveGasPrice ?? '0x0') };
  }
  if (await ctx.messageReceived(message.teleporterMessageId, signal)) return { kind: 'delivered-by-other', txHash };
  return { kind: 'failed', reason: `delivery ${txHash} reverted and messageReceived(${message.teleporterMessageId}) is false` };
}

async function minedReceipt(ctx: WaitContext, hashes: readonly Hex[], signal?: AbortSignal): Promise<RpcReceipt | undefined> {
  for (const hash of hashes) {
    const receipt = await ctx.request<RpcReceipt | null>('eth_getTransactionReceipt', [hash], signal);
    if (receipt) return receipt;
  }
  return undefined;
}

/** Polls until an outcome, the nonce taken by another transaction, or `timeoutMs` (0: look once). */
export async function waitForOutcome(
  ctx: WaitContext,
  message: SourceMessage,
  at: { readonly hashes: readonly Hex[]; readonly from: Hex; readonly nonce: number },
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Waited> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let receipt = await minedReceipt(ctx, at.hashes, signal);
    if (receipt) return { kind: 'outcome', outcome: await outcomeOf(ctx, message, receipt, signal) };
    const mined = Number(BigInt(await ctx.request<Hex>('eth_getTransactionCount', [at.from, 'latest'], signal)));
    if (mined > at.nonce) {
      // Ours may have been mined between the two reads.
      receipt = await minedReceipt(ctx, at.hashes, signal);
      if (receipt) return { kind: 'outcome', outcome: await outcomeOf(ctx, message, receipt, signal) };
      if (await ctx.messageReceived(message.teleporterMessageId, signal)) return { kind: 'outcome', outcome: { kind: 'delivered-by-other' } };
      return { kind: 'nonce-taken' };
    }
    const left = deadline - Date.now();
    if (left <= 0) return { kind: 'timeout' };
    await sleep(Math.min(ctx.pollIntervalMs, left), signal);
  }
}
