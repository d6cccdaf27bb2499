// One message's delivery transaction, from key choice to outcome. The transaction is signed here
// first, so its hash is recorded (`record`, awaited) before every broadcast, the first and each
// replacement; then its receipt is waited for, with fee bumps at the same nonce when it is slow,
// up to the cap. A previous run's submissions (`pending`) are looked at first: mined, their
// nonce taken by another transaction, or still open (then replaced at their nonce).
import { encodeFunctionData, keccak256 } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { decodeSigners, hexToBytes, parseSignedMessage, bytesTo0xHex } from '../../warp/index.js';
import type { DeliveryOutcome, Hex, SourceMessage, Submission } from '../ports.js';
import { TELEPORTER_MESSENGER_ABI } from './abi.js';
import { broadcast } from './broadcast.js';
import type { RpcRequest } from './chain.js';
import { bumpedFees, FeeCapError, initialFees, type FeePolicy, type Fees } from './fees.js';
import { deliveryGas, type WarpGasSchedule } from './gas.js';
import { allowedAccounts } from './keys.js';
import type { NonceManager } from './nonces.js';
import { warpAccessList } from './predicate.js';
import { waitForOutcome, type Waited } from './receipts.js';

export interface DeliveryContext {
  readonly request: RpcRequest;
  chainId(signal?: AbortSignal): Promise<number>;
  gasSchedule(signal?: AbortSignal): Promise<WarpGasSchedule>;
  messageReceived(id: Hex, signal?: AbortSignal): Promise<boolean>;
  readonly teleporterAddress: Hex;
  readonly accounts: readonly PrivateKeyAccount[];
  readonly nonces: NonceManager;
  readonly fees: FeePolicy;
  /** Where Teleporter credits the relayer's reward (default: the delivering key's address). */
  readonly rewardAddress?: Hex;
  readonly receiptTimeoutMs: number;
  readonly pollIntervalMs: number;
  /** Receipt waits at the fee cap before giving the message back to the engine (default 2). */
  readonly waitsAtCap: number;
  /** Deliveries in flight per key (lower case address), to spread messages over keys. */
  readonly inFlight: Map<string, number>;
  onLowBalance?(detail: { readonly address: Hex; readonly balance: bigint; readonly needed: bigint }): void;
}

interface DeliverOptions {
  readonly pending: readonly Submission[];
  record(submission: Submission): Promise<void>;
  readonly signal?: AbortSignal;
}

/** The signer count of a signed message that carries `message`, or a reason it does not. */
function signersOf(signedMessage: Hex, message: SourceMessage): number | string {
  let signed;
  try {
    signed = parseSignedMessage(hexToBytes(signedMessage));
  } catch (err) {
    return `the signed message does not parse: ${(err as Error).message}`;
  }
  if (bytesTo0xHex(signed.unsigned.bytes) !== message.unsignedMessage.toLowerCase()) return 'the signed message is not this message';
  return decodeSigners(signed.signers).length;
}

interface Attempt {
  readonly account: PrivateKeyAccount;
  nonce: number;
  /** The nonce was taken from the manager (so it can be handed back if nothing goes out). */
  readonly owned: boolean;
  fees: Fees | undefined;
  /** Hashes broadcast (or maybe broadcast) at this nonce, this run or recorded by an earlier one. */
  readonly hashes: Hex[];
  sentAny: boolean;
}

const address = (account: PrivateKeyAccount): Hex => account.address.toLowerCase() as Hex;

async function currentFees(ctx: DeliveryContext, signal?: AbortSignal): Promise<Fees> {
  const [block, tip] = await Promise.all([
    ctx.request<{ baseFeePerGas?: Hex }>('eth_getBlockByNumber', ['latest', false], signal),
    ctx.request<Hex>('eth_maxPriorityFeePerGas', [], signal),
  ]);
  return initialFees(BigInt(block.baseFeePerGas ?? '0x0'), BigInt(tip), ctx.fees);
}

function pickAccount(ctx: DeliveryContext, message: SourceMessage): PrivateKeyAccount | undefined {
  const candidates = allowedAccounts(ctx.accounts, message.allowedRelayerAddresses);
  return candidates.sort((a, b) => (ctx.inFlight.get(address(a)) ?? 0) - (ctx.inFlight.get(address(b)) ?? 0))[0];
}

export async function deliver(ctx: DeliveryContext, message: SourceMessage, signedMessage: Hex, options: DeliverOptions): Promise<DeliveryOutcome> {
  const { signal } = options;
  const signers = signersOf(signedMessage, message);
  if (typeof signers === 'string') return { kind: 'failed', reason: signers };
  let attempt: Attempt | undefined;
  if (options.pending.length > 0) {
    const resumed = await resume(ctx, message, options.pending, signal);
    if ('kind' in resumed) return resumed;
    attempt = resumed.attempt;
  }
  const account = attempt?.account ?? pickAccount(ctx, message);
  if (!account) return { kind: 'failed', reason: 'none of our delivery keys is in the message’s allowedRelayerAddresses' };
  const key = address(account);
  ctx.inFlight.set(key, (ctx.inFlight.get(key) ?? 0) + 1);
  try {
    const data = encodeFunctionData({ abi: TELEPORTER_MESSENGER_ABI, functionName: 'receiveCrossChainMessage', args: [0, ctx.rewardAddress ?? account.address] });
    const gas = deliveryGas({
      schedule: await ctx.gasSchedule(signal),
      signers,
      requiredGasLimit: message.requiredGasLimit,
      signedMessageBytes: hexToBytes(signedMessage).length,
      unsignedMessageBytes: hexToBytes(message.unsignedMessage).length,
      receiptCount: message.receiptCount,
      calldata: data,
    }).total;
    const accessList = warpAccessList(signedMessage);
    attempt ??= { account, nonce: await ctx.nonces.take(account.address), owned: true, fees: undefined, hashes: [], sentAny: false };
    return await send(ctx, message, attempt, { data, gas, accessList }, options);
  } finally {
    ctx.inFlight.set(key, (ctx.inFlight.get(key) ?? 1) - 1);
  }
}

/** A previous run's submissions: their outcome, or the attempt that continues at their nonce. */
async function resume(ctx: DeliveryContext, message: SourceMessage, pending: readonly Submission[], signal?: AbortSignal): Promise<DeliveryOutcome | { attempt: Attempt | undefined }> {
  const last = pending.at(-1)!;
  const hashes = pending.filter((p) => p.nonce === last.nonce).map((p) => p.txHash);
  const waited = await waitForOutcome(ctx, message, { hashes: pending.map((p) => p.txHash), from: last.from, nonce: last.nonce }, 0, signal);
  if (waited.kind === 'outcome') return waited.outcome;
  if (waited.kind === 'nonce-taken') return { attempt: undefined };
  const account = ctx.accounts.find((a) => address(a) === last.from.toLowerCase());
  if (!account) {
    // Not ours any more: wait for it, no replacement possible.
    const later = await waitForOutcome(ctx, message, { hashes, from: last.from, nonce: last.nonce }, ctx.receiptTimeoutMs, signal);
    if (later.kind === 'outcome') return later.outcome;
    if (later.kind === 'nonce-taken') return { attempt: undefined };
    return { kind: 'retry', reason: `a submission from ${last.from}, a key no longer configured, is still pending at nonce ${last.nonce}` };
  }
  ctx.nonces.claim(account.address, last.nonce);
  return {
    attempt: { account, nonce: last.nonce, owned: false, fees: { maxFeePerGas: last.maxFeePerGas, maxPriorityFeePerGas: last.maxPriorityFeePerGas }, hashes, sentAny: true },
  };
}

interface Call {
  readonly data: Hex;
  readonly gas: bigint;
  readonly accessList: { address: Hex; storageKeys: Hex[] }[];
}

const MAX_NONCE_RETAKES = 3;

async function send(ctx: DeliveryContext, message: SourceMessage, a: Attempt, call: Call, options: DeliverOptions): Promise<DeliveryOutcome> {
  const { signal } = options;
  const from = address(a.account);
  let retakes = 0;
  let waitsAtCap = 0;
  // Gives the nonce back when nothing went out at it; a resumed (claimed) one is released once done.
  let settled = false;
  const settle = <T>(value: T): T => {
    if (settled) return value;
    settled = true;
    if (a.owned && !a.sentAny) ctx.nonces.release(a.account.address, a.nonce);
    if (!a.owned) ctx.nonces.unclaim(a.account.address, a.nonce);
    return value;
  };
  try {
    return await sendLoop(ctx, message, a, call, options, settle, from);
  } catch (err) {
    settle(undefined); // aborted (stop), or the record refused: the nonce is not lost
    throw err;
  }
}

async function sendLoop(
  ctx: DeliveryContext,
  message: SourceMessage,
  a: Attempt,
  call: Call,
  options: DeliverOptions,
  settle: <T>(value: T) => T,
  from: Hex,
): Promise<DeliveryOutcome> {
  const { signal } = options;
  let retakes = 0;
  let waitsAtCap = 0;
  const retake = async (): Promise<DeliveryOutcome | undefined> => {
    if (++retakes > MAX_NONCE_RETAKES) return settle({ kind: 'retry', reason: `nonce of ${from} kept moving under us` });
    await ctx.nonces.resync(a.account.address);
    if (await ctx.messageReceived(message.teleporterMessageId, signal)) return settle({ kind: 'delivered-by-other' });
    if (!a.owned) ctx.nonces.unclaim(a.account.address, a.nonce);
    Object.assign(a, { owned: true, nonce: await ctx.nonces.take(a.account.address), sentAny: false, fees: undefined });
    a.hashes.length = 0;
    return undefined;
  };
  // The chain's fees now, or the message handed back when its base fee is over the cap.
  const freshFees = async (): Promise<Fees | DeliveryOutcome> => {
    try {
      return await currentFees(ctx, signal);
    } catch (err) {
      if (err instanceof FeeCapError) return settle({ kind: 'retry', reason: err.message });
      throw err;
    }
  };
  const first = await freshFees();
  if (!('maxFeePerGas' in first)) return first;
  let next: Fees | null = a.fees ? bumpedFees(a.fees, first, ctx.fees) : first;
  for (;;) {
    signal?.throwIfAborted();
    if (next) {
      const needed = call.gas * next.maxFeePerGas;
      const balance = BigInt(await ctx.request<Hex>('eth_getBalance', [a.account.address, 'latest'], signal));
      if (balance < needed) {
        ctx.onLowBalance?.({ address: from, balance, needed });
        if (!a.sentAny) return settle({ kind: 'retry', reason: `key ${from} holds ${balance} wei, less than the ${needed} wei this delivery may cost` });
        next = null; // an earlier submission is out: wait for it rather than replace it
      }
    }
    if (next) {
      const fees = next;
      const serialized = await a.account.signTransaction({
        type: 'eip1559', chainId: await ctx.chainId(signal), nonce: a.nonce, to: ctx.teleporterAddress, data: call.data,
        gas: call.gas, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas, accessList: call.accessList,
      });
      const txHash = keccak256(serialized);
      const submission: Submission = { txHash, from, nonce: a.nonce, gasLimit: call.gas, ...fees, at: Date.now() };
      await options.record(submission); // throws e.g. when the route's lease is lost: nothing goes out
      const result = await broadcast(ctx.request, serialized, signal);
      if (result.kind === 'sent' || result.kind === 'unknown') {
        a.hashes.push(txHash);
        a.sentAny = true;
        a.fees = fees;
      } else if (result.kind === 'nonce-too-low') {
        if (!a.sentAny) {
          const outcome = await retake();
          if (outcome) return outcome;
          const fresh = await freshFees();
          if (!('maxFeePerGas' in fresh)) return fresh;
          next = fresh;
          continue;
        }
        // One of ours at this nonce was mined: the wait below finds its receipt.
      } else if (result.kind === 'underpriced') {
        // A pending transaction at this nonce (ours, or one we do not know of) wants a bigger raise.
        a.fees = fees;
        next = bumpedFees(fees, fees, ctx.fees);
        if (next) continue;
        if (!a.sentAny) a.sentAny = true; // the nonce is occupied by that transaction: keep it
      } else if (result.kind === 'insufficient-funds') {
        ctx.onLowBalance?.({ address: from, balance: BigInt(await ctx.request<Hex>('eth_getBalance', [a.account.address, 'latest'], signal)), needed: call.gas * fees.maxFeePerGas });
        if (!a.sentAny) return settle({ kind: 'retry', reason: `key ${from}: ${result.reason}` });
      } else if (!a.sentAny) {
        return settle({ kind: 'retry', reason: `the node refused the delivery: ${result.reason}` });
      }
    }
    const waited: Waited = await waitForOutcome(ctx, message, { hashes: a.hashes, from, nonce: a.nonce }, ctx.receiptTimeoutMs, signal);
    if (waited.kind === 'outcome') return settle(waited.outcome);
    if (waited.kind === 'nonce-taken') {
      const outcome = await retake();
      if (outcome) return outcome;
      const fresh = await freshFees();
      if (!('maxFeePerGas' in fresh)) return fresh;
      next = fresh;
      continue;
    }
    // Not mined in time: replace it with higher fees, or at the cap wait a little more.
    next = a.fees ? bumpedFees(a.fees, await currentFees(ctx, signal).catch(() => a.fees!), ctx.fees) : null;
    if (!next && ++waitsAtCap > ctx.waitsAtCap) {
      return settle({ kind: 'retry', reason: `not mined within ${ctx.receiptTimeoutMs} ms at the fee cap (${a.fees?.maxFeePerGas ?? 0n} wei); nonce ${a.nonce} of ${from} is still pending` });
    }
  }
}
