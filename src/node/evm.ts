// A chain's EVM warp API on the node (POST {node}/ext/bc/{chainID}/rpc, geth-style JSON-RPC;
// protocol.md section 7): the messages the chain has accepted and the node's signatures of them.
import { idToString } from '../warp/cb58.js';
import { hexToBytes } from '../warp/hex.js';
import { JsonRpcTransport, type CallOptions, type NodeClientOptions } from './transport.js';

/** A hex result; null (the node has nothing) reads as no bytes. */
function readHex(what: string): (result: unknown) => Uint8Array {
  return (result) => {
    if (result === null || result === undefined) return new Uint8Array(0);
    if (typeof result !== 'string') throw new Error(`${what} is not a hex string`);
    return hexToBytes(result, what);
  };
}

export class EvmWarpClient {
  private readonly rpc: JsonRpcTransport;

  /** On a transport shared with the node's other APIs, or on one of its own. */
  constructor(node: JsonRpcTransport | NodeClientOptions) {
    this.rpc = node instanceof JsonRpcTransport ? node : new JsonRpcTransport(node);
  }

  /** warp_getMessage: the unsigned message the chain accepted under this ID. */
  getMessage(chainId: Uint8Array, messageId: Uint8Array, opts: CallOptions = {}): Promise<Uint8Array> {
    return this.rpc.typed(pathOf(chainId), 'warp_getMessage', [idToString(messageId)], readHex('warp_getMessage result'), opts);
  }

  /** warp_getMessageSignature: the node's BLS signature of an accepted message (empty or zeros: none yet). */
  getMessageSignature(chainId: Uint8Array, messageId: Uint8Array, opts: CallOptions = {}): Promise<Uint8Array> {
    return this.rpc.typed(pathOf(chainId), 'warp_getMessageSignature', [idToString(messageId)], readHex('warp_getMessageSignature result'), opts);
  }
}

function pathOf(chainId: Uint8Array): string {
  return `/ext/bc/${idToString(chainId)}/rpc`;
}
