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
  contractAddress: Hex.Hex | null;
  blockHash: Hex.Hex;
  blockNumber: Hex.Hex;
  logs: { address: Hex.Hex; topics: Hex.Hex[]; data: Hex.Hex }[];
}

export interface TxInput {
  /** Absent: a contract creation. */
  to?: Hex.Hex;
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
    ...(tx.to ? { to: tx.to } : {}),
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

export const getVerifiedWarpMessage = AbiFunction.from(
  'function getVerifiedWarpMessage(uint32 index) view returns ((bytes32 sourceChainID, address originSenderAddress, bytes payload) message, bool valid)',
);

/**
 * A contract that reverts unless the Warp precompile's getVerifiedWarpMessage(0) says valid:
 * hand-assembled (no Solidity compiler here), 67 bytes of runtime code:
 *   mstore(0, selector << 224); staticcall(gas, precompile, 0, 36, 0, 0) or revert;
 *   returndatacopy(0, 32, 32) (the `valid` word); revert if it is zero; stop.
 */
export function warpCheckInitCode(): Hex.Hex {
  const selector = AbiFunction.getSelector(getVerifiedWarpMessage).slice(2);
  const revertAt = '3d';
  const runtime =
    `63${selector}60e01b600052` + // mstore(0, selector << 224)
    `6000600060246000` + // retSize 0, retOffset 0, argsSize 36, argsOffset 0
    `73${WARP_PRECOMPILE.slice(2)}5afa` + // staticcall(gas, precompile, …)
    `1560${revertAt}57` + // failed call: revert
    `6020602060003e` + // returndatacopy(0, 32, 32)
    `6000511560${revertAt}57` + // valid == 0: revert
    `00` + // stop
    `5b60006000fd`; // revert(0, 0)
  if (runtime.length / 2 !== 0x43) throw new Error(`runtime is ${runtime.length / 2} bytes`);
  // init: codecopy(0, 11, 67); return(0, 67)
  return `0x604380600b6000396000f3${runtime}`;
}

/**
 * The access list that carries a signed Warp message as the transaction's predicate: the bytes,
 * one 0xff delimiter, zero padding to a multiple of 32, cut into storage keys of the precompile.
 */
export function warpPredicate(signed: Uint8Array): { address: Hex.Hex; storageKeys: Hex.Hex[] }[] {
  const padded = new Uint8Array(Math.ceil((signed.length + 1) / 32) * 32);
  padded.set(signed);
  padded[signed.length] = 0xff;
  const storageKeys: Hex.Hex[] = [];
  for (let i = 0; i < padded.length; i += 32) storageKeys.push(Hex.fromBytes(padded.subarray(i, i + 32)));
  return [{ address: WARP_PRECOMPILE, storageKeys }];
}
