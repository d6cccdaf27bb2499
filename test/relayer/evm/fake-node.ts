// A small in-memory EVM JSON-RPC node for the destination's tests: it parses and recovers the
// signed transactions it is sent (viem), keeps a mempool per (sender, nonce) with geth's
// replacement rule (both fees up by at least 10%), mines on demand, and answers the calls a
// delivery makes. Each test decides what gets mined and what the node refuses.
import { custom, keccak256, parseTransaction, recoverTransactionAddress, type Hex } from 'viem';

export interface FakeTx {
  hash: Hex;
  from: string;
  nonce: number;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  gas: bigint;
  accessList: readonly { address: string; storageKeys: readonly string[] }[];
  data: Hex;
}

export class RpcError extends Error {
  constructor(message: string, readonly code = -32000) {
    super(message);
  }
}

export class FakeNode {
  readonly calls: { method: string; params: unknown[] }[] = [];
  readonly sent: FakeTx[] = [];
  readonly mempool = new Map<string, FakeTx>();
  readonly receipts = new Map<Hex, { status: Hex; gasUsed: Hex; effectiveGasPrice: Hex; transactionHash: Hex }>();
  readonly minedNonce = new Map<string, number>();
  readonly balances = new Map<string, bigint>();
  baseFee = 25_000_000_000n;
  tip = 1_000_000_000n;
  chainConfig: unknown = { graniteTimestamp: 0, warpConfig: { blockTimestamp: 0, quorumNumerator: 0 } };
  received = new Set<string>();
  /** Mine every accepted transaction at once. */
  autoMine = true;
  /** Mined transactions revert. */
  revert = false;
  /** Refuse a raw transaction with this error (once per entry). */
  refusals: Error[] = [];

  transport() {
    return custom({ request: ({ method, params }: { method: string; params?: unknown }) => this.request(method, (params ?? []) as unknown[]) });
  }

  private key(from: string, nonce: number): string {
    return `${from.toLowerCase()}/${nonce}`;
  }

  nonceOf(from: string): number {
    return this.minedNonce.get(from.toLowerCase()) ?? 0;
  }

  pendingNonceOf(from: string): number {
    let n = this.nonceOf(from);
    while (this.mempool.has(this.key(from, n))) n++;
    return n;
  }

  /** Mines the mempool's transaction at (from, nonce), or all of them. */
  mine(filter?: (tx: FakeTx) => boolean): FakeTx[] {
    const mined: FakeTx[] = [];
    for (const [key, tx] of [...this.mempool.entries()].sort(([, a], [, b]) => a.nonce - b.nonce)) {
      if (filter && !filter(tx)) continue;
      if (tx.nonce !== this.nonceOf(tx.from)) continue;
      this.mempool.delete(key);
      this.minedNonce.set(tx.from, tx.nonce + 1);
      this.receipts.set(tx.hash, {
        transactionHash: tx.hash,
        status: this.revert ? '0x0' : '0x1',
        gasUsed: `0x${(tx.gas / 2n).toString(16)}`,
        effectiveGasPrice: `0x${(this.baseFee + tx.maxPriorityFeePerGas).toString(16)}`,
      });
      mined.push(tx);
    }
    return mined;
  }

  async request(method: string, params: unknown[]): Promise<unknown> {
    this.calls.push({ method, params });
    const hex = (n: bigint | number): Hex => `0x${n.toString(16)}`;
    switch (method) {
      case 'eth_chainId':
        return hex(99999);
      case 'eth_getChainConfig':
        return this.chainConfig;
      case 'eth_getBlockByNumber':
        return { number: '0x10', baseFeePerGas: hex(this.baseFee) };
      case 'eth_maxPriorityFeePerGas':
        return hex(this.tip);
      case 'eth_getBalance':
        return hex(this.balances.get(String(params[0]).toLowerCase()) ?? 10n ** 21n);
      case 'eth_getTransactionCount': {
        const from = String(params[0]).toLowerCase();
        return hex(params[1] === 'pending' ? this.pendingNonceOf(from) : this.nonceOf(from));
      }
      case 'eth_getTransactionReceipt':
        return this.receipts.get(params[0] as Hex) ?? null;
      case 'eth_call': {
        // messageReceived(bytes32): the selector and one word.
        const data = (params[0] as { data: Hex }).data;
        return this.received.has(`0x${data.slice(10)}`) ? hex(1).replace('0x', '0x' + '0'.repeat(63)) : `0x${'0'.repeat(64)}`;
      }
      case 'eth_sendRawTransaction':
        return this.accept(params[0] as Hex);
      default:
        throw new RpcError(`the method ${method} does not exist`, -32601);
    }
  }

  private async accept(raw: Hex): Promise<Hex> {
    const refusal = this.refusals.shift();
    if (refusal) throw refusal;
    const parsed = parseTransaction(raw);
    const from = (await recoverTransactionAddress({ serializedTransaction: raw as never })).toLowerCase();
    const tx: FakeTx = {
      hash: keccak256(raw),
      from,
      nonce: parsed.nonce!,
      maxFeePerGas: parsed.maxFeePerGas!,
      maxPriorityFeePerGas: parsed.maxPriorityFeePerGas!,
      gas: parsed.gas!,
      accessList: parsed.accessList ?? [],
      data: parsed.data!,
    };
    if (tx.nonce < this.nonceOf(from)) throw new RpcError('nonce too low');
    const existing = this.mempool.get(this.key(from, tx.nonce));
    if (existing && existing.hash === tx.hash) throw new RpcError('already known');
    if (existing && (tx.maxFeePerGas * 10n < existing.maxFeePerGas * 11n || tx.maxPriorityFeePerGas * 10n < existing.maxPriorityFeePerGas * 11n)) {
      throw new RpcError('replacement transaction underpriced');
    }
    const balance = this.balances.get(from) ?? 10n ** 21n;
    if (balance < tx.gas * tx.maxFeePerGas) throw new RpcError(`insufficient funds for gas * price + value: address ${from} have ${balance} want ${tx.gas * tx.maxFeePerGas}`);
    this.mempool.set(this.key(from, tx.nonce), tx);
    this.sent.push(tx);
    if (this.autoMine) this.mine();
    return tx.hash;
  }
}
