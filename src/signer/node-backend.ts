// Lets the validator's own node decide: asks its EVM warp API for `warp_getMessageSignature`,
// which answers only for messages the node has accepted, signed with the node's BLS key.
import { idToString } from '../warp/cb58.js';
import { hexToBytes } from '../warp/hex.js';
import { DEFAULT_NODE_TIMEOUT_MS, NodeRpcError, callChainRpc, parseNodeUrl } from './node-rpc.js';
import type { SignOutcome, SigningBackend, SigningPolicy, UnsignedMessage } from './types.js';

const SIGNATURE_BYTES = 96;

export class NodeBackend implements SigningBackend {
  readonly nodeUrl: string;

  constructor(
    nodeUrl: string,
    private readonly opts: { timeoutMs?: number; policy?: SigningPolicy } = {},
  ) {
    this.nodeUrl = parseNodeUrl(nodeUrl);
  }

  async sign(message: UnsignedMessage, justification: Uint8Array): Promise<SignOutcome> {
    // An optional local policy refuses cheaply before the node is bothered.
    const local = await this.opts.policy?.check(message, justification);
    if (local) return { kind: 'refused', reason: local };
    const id = idToString(message.id);
    let result: unknown;
    try {
      result = await callChainRpc(this.nodeUrl, message.sourceChainId, 'warp_getMessageSignature', [id], this.opts.timeoutMs ?? DEFAULT_NODE_TIMEOUT_MS);
    } catch (err) {
      if (err instanceof NodeRpcError) {
        return { kind: 'refused', reason: err.kind === 'rpc' ? `the node refused: ${err.message}` : `the node could not be asked: ${err.message}` };
      }
      throw err;
    }
    let signature: Uint8Array;
    try {
      signature = hexToBytes(String(result ?? ''), 'warp_getMessageSignature result');
    } catch {
      return { kind: 'refused', reason: `the node answered warp_getMessageSignature for ${id} with something that is not hex` };
    }
    // ACP-118: an empty or all-zero signature means "not signable (yet)".
    if (signature.length === 0 || signature.every((b) => b === 0)) {
      return { kind: 'refused', reason: `the node has no signature for message ${id} (not accepted yet?)` };
    }
    if (signature.length !== SIGNATURE_BYTES) {
      return { kind: 'refused', reason: `the node returned a ${signature.length}-byte signature for ${id}, expected ${SIGNATURE_BYTES}` };
    }
    return { kind: 'signature', signature };
  }
}
