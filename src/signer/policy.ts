// What a key-file signer is willing to sign. A validator must never sign a message it cannot
// vouch for (protocol.md section 7): a signer that signs anything lets anyone forge cross-chain
// messages. Policies compose; every one must allow a message.
import { ID_LENGTH, idToString } from '../warp/cb58.js';
import { bytesEqual, hexToBytes } from '../warp/hex.js';
import { DEFAULT_NODE_TIMEOUT_MS, NodeRpcError, callChainRpc, parseNodeUrl } from './node-rpc.js';
import type { SigningPolicy, UnsignedMessage } from './types.js';

/** A policy that cannot be built as configured. */
export class PolicyError extends Error {
  override readonly name = 'PolicyError';
}

/** Allows one network ID and a fixed list of source chains. */
export class StaticPolicy implements SigningPolicy {
  readonly networkId: number;
  private readonly allowed: Uint8Array[];

  constructor(opts: { networkId: number; allowedSourceChains: Uint8Array[] }) {
    if (!Number.isInteger(opts.networkId) || opts.networkId < 0 || opts.networkId > 0xffff_ffff) {
      throw new PolicyError(`networkId must be an integer from 0 to 4294967295, got ${opts.networkId}`);
    }
    if (opts.allowedSourceChains.length === 0) {
      throw new PolicyError('allowedSourceChains must name at least one chain (an empty list would refuse everything)');
    }
    for (const chain of opts.allowedSourceChains) {
      if (chain.length !== ID_LENGTH) throw new PolicyError(`a source chain ID must be ${ID_LENGTH} bytes, got ${chain.length}`);
    }
    this.networkId = opts.networkId;
    this.allowed = opts.allowedSourceChains.map((c) => Uint8Array.from(c));
  }

  async check(message: UnsignedMessage): Promise<string | null> {
    if (message.networkId !== this.networkId) {
      return `network ID ${message.networkId} is not this signer's network ${this.networkId}`;
    }
    if (!this.allowed.some((c) => bytesEqual(c, message.sourceChainId))) {
      return `source chain ${idToString(message.sourceChainId)} is not one this signer signs for`;
    }
    return null;
  }
}

/**
 * Allows only messages the validator's own node has accepted: `warp_getMessage(messageID)` on the
 * source chain must return the same bytes. Compose it after a StaticPolicy so that only allowed
 * chains reach the node.
 */
export class NodeConfirmedPolicy implements SigningPolicy {
  readonly nodeUrl: string;

  constructor(
    nodeUrl: string,
    private readonly timeoutMs = DEFAULT_NODE_TIMEOUT_MS,
  ) {
    this.nodeUrl = parseNodeUrl(nodeUrl, 'confirmWithNode');
  }

  async check(message: UnsignedMessage): Promise<string | null> {
    const id = idToString(message.id);
    let result: unknown;
    try {
      result = await callChainRpc(this.nodeUrl, message.sourceChainId, 'warp_getMessage', [id], this.timeoutMs);
    } catch (err) {
      if (err instanceof NodeRpcError) {
        return err.kind === 'rpc' ? `the node does not confirm message ${id}: ${err.message}` : `could not confirm message ${id} with the node: ${err.message}`;
      }
      throw err;
    }
    let bytes: Uint8Array;
    try {
      bytes = hexToBytes(String(result), 'warp_getMessage result');
    } catch {
      return `the node answered warp_getMessage for ${id} with something that is not hex`;
    }
    if (!bytesEqual(bytes, message.bytes)) return `the node holds different bytes for message ${id}`;
    return null;
  }
}

/** All policies must allow; they are asked in order and the first refusal wins. */
export class AllPolicies implements SigningPolicy {
  constructor(private readonly policies: readonly SigningPolicy[]) {
    if (policies.length === 0) throw new PolicyError('at least one policy is required');
  }

  async check(message: UnsignedMessage, justification: Uint8Array): Promise<string | null> {
    for (const policy of this.policies) {
      const reason = await policy.check(message, justification);
      if (reason !== null) return reason;
    }
    return null;
  }
}
