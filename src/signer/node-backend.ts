// Lets the validator's own node decide: asks its EVM warp API for `warp_getMessageSignature`,
// which answers only for messages the node has accepted, signed with the node's BLS key.
import { EvmWarpClient } from '../node/evm.js';
import { NodeError } from '../node/errors.js';
import { idToString } from '../warp/cb58.js';
import { signerNodeTransport } from './node-transport.js';
import type { SignOutcome, SigningBackend, SigningPolicy, UnsignedMessage } from './types.js';

const SIGNATURE_BYTES = 96;

export class NodeBackend implements SigningBackend {
  readonly nodeUrl: string;
  private readonly evm: EvmWarpClient;

  constructor(
    nodeUrl: string,
    private readonly opts: { timeoutMs?: number; policy?: SigningPolicy } = {},
  ) {
    const transport = signerNodeTransport(nodeUrl, 'node URL', opts.timeoutMs);
    this.nodeUrl = transport.baseUrl;
    this.evm = new EvmWarpClient(transport);
  }

  async sign(message: UnsignedMessage, justification: Uint8Array): Promise<SignOutcome> {
    // An optional local policy refuses cheaply before the node is bothered.
    const local = await this.opts.policy?.check(message, justification);
    if (local) return { kind: 'refused', reason: local };
    const id = idToString(message.id);
    let signature: Uint8Array;
    try {
      signature = await this.evm.getMessageSignature(message.sourceChainId, message.id);
    } catch (err) {
      if (!(err instanceof NodeError)) throw err;
      const why = err.kind === 'rpc' ? 'the node refused' : err.kind === 'bad-response' ? "the node's answer is unusable" : 'the node could not be asked';
      return { kind: 'refused', reason: `${why}: ${err.atUrl()}` };
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
