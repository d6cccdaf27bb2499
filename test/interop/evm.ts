// EVM transactions for the interop tests: EIP-1559, signed with ox (already a dependency, for
// Teleporter's ABI) and sent to a real chain's JSON-RPC.
import { AbiFunction, Hex, Secp256k1, TransactionEnvelope } from 'ox';
import { waitFor } from '../ops/helpers.js';
import { rpc } from './helpers.js';
import type { FundedKey } from './paths.js';

export const WARP_PRECOMPILE = '0x0200000000000000000000000000000000000005';

export const sendWarpMessage = AbiFunction.from('function sendWarpMessage(bytes payload) returns (bytes32 messageID)');

export interface Receipt {
  status: Hex.Hex;
  blockHash: Hex.Hex;
  blockNumber: Hex.Hex;
  logs: { address: Hex.Hex; topics: Hex.Hex[]; data: Hex.Hex }[];
}

export interface TxInput {
  to: Hex.Hex;
  data: Hex.Hex;
  gas?: bigint;
  accessList?: { address: Hex.Hex; storageKeys: Hex.Hex[] }[];
}

/** Signs and sends an EIP-1559 transaction from `key`, and waits for its receipt. */
export async function sendTransaction(rpcUrl: string, chainId: number, key: FundedKey, tx: TxInput): Promise<Receipt> {
  const [nonce, baseFee, tip] = await Promise.all([
    rpc<Hex.Hex>(rpcUrl, 'eth_getTransactionCount', [key.address, 'pending']),
    rpc<{ baseFeePerGas: Hex.Hex }>(rpcUrl, 'eth_getBlockByNumber', ['latest', false]),
    rpc<Hex.Hex>(rpcUrl, 'eth_maxPriorityFeePerGas', []),
  ]);
  const maxPriorityFeePerGas = BigInt(tip);
  const envelope = TransactionEnvelope.from({
    type: 'eip1559',
    chainId,
    nonce: BigInt(nonce),
    to: tx.to,
    data: tx.data,
    gas: tx.gas ?? 1_000_000n,
    maxPriorityFeePerGas,
    maxFeePerGas: BigInt(baseFee.baseFeePerGas) * 2n + maxPriorityFeePerGas,
    accessList: tx.accessList ?? [],
  });
  const signature = Secp256k1.sign({ payload: TransactionEnvelope.getSignPayload(envelope), privateKey: key.privateKey });
  const hash = await rpc<Hex.Hex>(rpcUrl, 'eth_sendRawTransaction', [TransactionEnvelope.serialize(envelope, { signature })]);
  return waitFor(`receipt of ${hash}`, async () => (await rpc<Receipt | null>(rpcUrl, 'eth_getTransactionReceipt', [hash])) ?? undefined, 60_000, 250);
}
