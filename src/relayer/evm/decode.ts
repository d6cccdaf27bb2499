// From a SendWarpMessage log to a SourceMessage (protocol.md §10, §11). The log's `message` is
// the unsigned Warp message; its payload is an AddressedCall from the messenger whose payload is
// `abi.encode(TeleporterMessage)`. Everything is checked against what the log claims (the indexed
// message ID is the sha256 of the bytes, the AddressedCall's source is the log's sender, the
// message comes from this chain), so a log that does not add up is reported, never relayed.
import { decodeEventLog, type Log } from 'viem';
import {
  bytesTo0xHex,
  bytesEqual,
  decodeTeleporterMessage,
  hexToBytes,
  parsePayload,
  parseUnsignedMessage,
} from '../../warp/index.js';
import { sourceMessageFrom } from '../decode.js';
import type { Hex, SourceMessage } from '../ports.js';
import { SEND_WARP_MESSAGE_EVENT } from './abi.js';

const hex = (bytes: Uint8Array): Hex => bytesTo0xHex(bytes) as Hex;

/** What a source needs to know to check a log: its own chain and its messenger. */
export interface DecodeContext {
  /** 32 bytes: the source chain's blockchain ID. */
  readonly blockchainId: Uint8Array;
  /** The Teleporter messenger's address on this chain (lower case). */
  readonly teleporterAddress: Hex;
}

type DecodedLog = { readonly ok: true; readonly message: SourceMessage } | { readonly ok: false; readonly reason: string };

/** What eth_getLogs answers: hex quantities. */
export interface RpcLog {
  readonly topics: Hex[];
  readonly data: Hex;
  readonly blockNumber: Hex | null;
  readonly blockHash: Hex | null;
  readonly transactionHash: Hex | null;
  readonly logIndex: Hex | null;
}

type WarpLog = Pick<Log, 'topics' | 'data' | 'blockNumber' | 'blockHash' | 'transactionHash' | 'logIndex'>;

/** Decodes one SendWarpMessage log of the messenger; `ok: false` with the reason when it is not a Teleporter message for us. */
export function decodeSendWarpMessageLog(log: WarpLog, context: DecodeContext): DecodedLog {
  if (log.blockNumber === null || log.blockHash === null || log.transactionHash === null || log.logIndex === null) {
    return { ok: false, reason: 'log of a pending block' };
  }
  let args;
  try {
    ({ args } = decodeEventLog({ abi: [SEND_WARP_MESSAGE_EVENT], topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true }));
  } catch (err) {
    return { ok: false, reason: `not a SendWarpMessage log: ${(err as Error).message.split('\n')[0]}` };
  }
  const sender = args.sender.toLowerCase() as Hex;
  if (sender !== context.teleporterAddress) return { ok: false, reason: `sent by ${sender}, not the messenger` };
  let unsigned;
  let payload;
  try {
    unsigned = parseUnsignedMessage(hexToBytes(args.message));
    payload = parsePayload(unsigned.payload);
  } catch (err) {
    return { ok: false, reason: `undecodable Warp message: ${(err as Error).message}` };
  }
  const warpMessageId = hex(unsigned.id);
  if (warpMessageId !== args.messageID.toLowerCase()) return { ok: false, reason: `indexed messageID ${args.messageID} is not the sha256 of the message` };
  if (!bytesEqual(unsigned.sourceChainId, context.blockchainId)) return { ok: false, reason: 'the message names another source chain' };
  if (payload.type !== 'AddressedCall') return { ok: false, reason: 'a Hash payload, not an AddressedCall' };
  if (hex(payload.sourceAddress) !== sender) return { ok: false, reason: "the AddressedCall's source is not the log's sender" };
  const teleporter = decodeTeleporterMessage(payload.payload);
  if (!teleporter) return { ok: false, reason: 'the payload is not a TeleporterMessage' };
  const position = { blockNumber: Number(log.blockNumber), blockHash: log.blockHash.toLowerCase() as Hex, transactionHash: log.transactionHash.toLowerCase() as Hex, logIndex: log.logIndex };
  return { ok: true, message: sourceMessageFrom(unsigned, sender, teleporter, position) };
}
