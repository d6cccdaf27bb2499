// A JSON view of a Warp message for people (`warpgate decode`): every layer decoded as far as it
// goes, ids in hex and cb58, 64-bit numbers as decimal strings so no precision is lost.
// Only the message envelope must parse; a payload or inner message that does not parse is shown
// as raw bytes with the reason, since a Warp message may carry any payload.
import { idToString, nodeIdToString, NODE_ID_LENGTH } from './cb58.js';
import { decodeSigners } from './bitset.js';
import { WarpFormatError } from './errors.js';
import { bytesTo0xHex } from './hex.js';
import { parseL1Message, validationIdOfRegistration, type L1Message, type PChainOwner } from './l1-messages.js';
import { parsePayload } from './payload.js';
import { parseWarpMessage } from './signed-message.js';
import { decodeTeleporterMessage, type TeleporterMessage } from './teleporter.js';

export interface IdDescription {
  hex: string;
  cb58: string;
}

export type L1MessageDescription = { type: L1Message['type'] } & Record<string, unknown>;

/** uint256 values as decimal strings, addresses and bytes as 0x hex. */
export interface TeleporterMessageDescription {
  messageNonce: string;
  originSenderAddress: string;
  destinationBlockchainId: IdDescription;
  destinationAddress: string;
  requiredGasLimit: string;
  allowedRelayerAddresses: string[];
  receipts: { receivedMessageNonce: string; relayerRewardAddress: string }[];
  message: string;
}

export type PayloadDescription =
  | { type: 'Hash'; hash: string }
  | {
      type: 'AddressedCall';
      sourceAddress: string;
      payload: string;
      inner?: L1MessageDescription;
      teleporter?: TeleporterMessageDescription;
    }
  | { type: 'unknown'; bytes: string; error: string };

export interface WarpMessageDescription {
  kind: 'signed' | 'unsigned';
  networkId: number;
  sourceChainId: IdDescription;
  messageId: IdDescription;
  unsignedMessage: string;
  /** Signed messages only. */
  signers?: string;
  signerIndices?: number[] | null;
  signersError?: string;
  signature?: string;
  payload: PayloadDescription;
}

function id(bytes: Uint8Array): IdDescription {
  return { hex: bytesTo0xHex(bytes), cb58: idToString(bytes) };
}

function owner(o: PChainOwner): { threshold: number; addresses: string[] } {
  return { threshold: o.threshold, addresses: o.addresses.map(bytesTo0xHex) };
}

function errorText(err: unknown): string {
  if (err instanceof WarpFormatError) return err.message;
  throw err;
}

export function describeL1Message(msg: L1Message, encoded: Uint8Array): L1MessageDescription {
  switch (msg.type) {
    case 'SubnetToL1Conversion':
      return { type: msg.type, conversionId: id(msg.conversionId) };
    case 'RegisterL1Validator':
      return {
        type: msg.type,
        subnetId: id(msg.subnetId),
        nodeId: msg.nodeId.length === NODE_ID_LENGTH ? nodeIdToString(msg.nodeId) : bytesTo0xHex(msg.nodeId),
        blsPublicKey: bytesTo0xHex(msg.blsPublicKey),
        expiry: msg.expiry.toString(),
        remainingBalanceOwner: owner(msg.remainingBalanceOwner),
        disableOwner: owner(msg.disableOwner),
        weight: msg.weight.toString(),
        validationId: id(validationIdOfRegistration(encoded)),
      };
    case 'L1ValidatorRegistration':
      return { type: msg.type, validationId: id(msg.validationId), registered: msg.registered };
    case 'L1ValidatorWeight':
      return { type: msg.type, validationId: id(msg.validationId), nonce: msg.nonce.toString(), weight: msg.weight.toString() };
  }
}

export function describeTeleporterMessage(m: TeleporterMessage): TeleporterMessageDescription {
  return {
    messageNonce: m.messageNonce.toString(),
    originSenderAddress: bytesTo0xHex(m.originSenderAddress),
    destinationBlockchainId: id(m.destinationBlockchainID),
    destinationAddress: bytesTo0xHex(m.destinationAddress),
    requiredGasLimit: m.requiredGasLimit.toString(),
    allowedRelayerAddresses: m.allowedRelayerAddresses.map(bytesTo0xHex),
    receipts: m.receipts.map((r) => ({
      receivedMessageNonce: r.receivedMessageNonce.toString(),
      relayerRewardAddress: bytesTo0xHex(r.relayerRewardAddress),
    })),
    message: bytesTo0xHex(m.message),
  };
}

function describePayload(bytes: Uint8Array): PayloadDescription {
  let payload;
  try {
    payload = parsePayload(bytes);
  } catch (err) {
    return { type: 'unknown', bytes: bytesTo0xHex(bytes), error: errorText(err) };
  }
  if (payload.type === 'Hash') return { type: 'Hash', hash: bytesTo0xHex(payload.hash) };
  const out: PayloadDescription = {
    type: 'AddressedCall',
    sourceAddress: bytesTo0xHex(payload.sourceAddress),
    payload: bytesTo0xHex(payload.payload),
  };
  // L1 messages travel both ways: the P-Chain signs SubnetToL1Conversion / L1ValidatorRegistration
  // (empty source address), and an L1's validator manager sends RegisterL1Validator /
  // L1ValidatorWeight from its own chain. The strict codec (version, type ID, exact length) makes
  // an accidental match on unrelated bytes practically impossible, so any source is tried.
  try {
    out.inner = describeL1Message(parseL1Message(payload.payload), payload.payload);
  } catch (err) {
    errorText(err);
  }
  // Teleporter is recognised by its bytes alone (a canonical ABI encoding), not by the source
  // address: TeleporterMessenger versions and private deployments live at other addresses.
  const teleporter = decodeTeleporterMessage(payload.payload);
  if (teleporter) out.teleporter = describeTeleporterMessage(teleporter);
  return out;
}

/** Decodes a signed or unsigned Warp message for display; throws WarpFormatError if the envelope is malformed. */
export function describeWarpMessage(bytes: Uint8Array): WarpMessageDescription {
  const parsed = parseWarpMessage(bytes);
  const unsigned = parsed.kind === 'signed' ? parsed.message.unsigned : parsed.message;
  const out: WarpMessageDescription = {
    kind: parsed.kind,
    networkId: unsigned.networkId,
    sourceChainId: id(unsigned.sourceChainId),
    messageId: id(unsigned.id),
    unsignedMessage: bytesTo0xHex(unsigned.bytes),
    payload: describePayload(unsigned.payload),
  };
  if (parsed.kind === 'signed') {
    const { signers, signature } = parsed.message;
    out.signers = bytesTo0xHex(signers);
    try {
      out.signerIndices = decodeSigners(signers);
    } catch (err) {
      out.signerIndices = null;
      out.signersError = errorText(err);
    }
    out.signature = bytesTo0xHex(signature);
  }
  // Re-order so the payload comes last, after the signature fields, for reading top to bottom.
  const { payload, ...head } = out;
  return { ...head, payload };
}
