// What a key-file signer is willing to sign. A validator must never sign a message it cannot
// vouch for (protocol.md section 7): a signer that signs anything lets anyone forge cross-chain
// messages. Policies compose; every one must allow a message.
import { ID_LENGTH, idToString, P_CHAIN_ID } from '../warp/cb58.js';
import { bytesEqual } from '../warp/hex.js';
import { EvmWarpClient } from '../node/evm.js';
import { NodeError } from '../node/errors.js';
import { signerNodeTransport } from './node-transport.js';
import type { SigningPolicy, UnsignedMessage, Verdict } from './types.js';

/** A policy that cannot be built as configured. */
export class PolicyError extends Error {
  override readonly name = 'PolicyError';
}

/** The P-Chain's ID in cb58 (32 zero bytes), as operators write it. */
const P_CHAIN_CB58 = idToString(P_CHAIN_ID);

/** Why no fixed list may name the P-Chain, for the errors that refuse such a list (each adds its remedy). */
export const P_CHAIN_NOT_STATIC =
  `the P-Chain (${P_CHAIN_CB58}) cannot be an allowed source chain: a fixed list cannot vouch for P-Chain messages ` +
  '(it would sign a forged L1ValidatorWeight or L1ValidatorRegistration)';

/** The remedy, for a policy file. */
export const USE_PCHAIN_NODE = `remove it and set "pchainNode" to your node, which signs a P-Chain message only when the node's P-Chain state makes it true`;

export function isPChain(chainId: Uint8Array): boolean {
  return bytesEqual(chainId, P_CHAIN_ID);
}

/** The policy's verdict, or, for a policy without `decide`, its answer taken as not final. */
export async function decideWith(policy: SigningPolicy, message: UnsignedMessage, justification: Uint8Array): Promise<Verdict> {
  if (policy.decide) return policy.decide(message, justification);
  return { reason: await policy.check(message, justification), final: false };
}

/**
 * Allows one network ID and a fixed list of source chains, never the P-Chain: whether a P-Chain
 * message is true depends on the P-Chain's state, which only PChainPolicy reads.
 */
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
      if (isPChain(chain)) throw new PolicyError(`${P_CHAIN_NOT_STATIC}; ${USE_PCHAIN_NODE}`);
    }
    this.networkId = opts.networkId;
    this.allowed = opts.allowedSourceChains.map((c) => Uint8Array.from(c));
  }

  async check(message: UnsignedMessage): Promise<string | null> {
    return (await this.decide(message)).reason;
  }

  // Every answer follows from the message bytes alone.
  async decide(message: UnsignedMessage): Promise<Verdict> {
    // Asked first and whatever the list holds: the constructor refuses the P-Chain, and this
    // holds even if that check were ever lost.
    if (isPChain(message.sourceChainId)) {
      return { reason: `source chain ${P_CHAIN_CB58} is the P-Chain, which only a policy with pchainNode signs for`, final: true };
    }
    if (message.networkId !== this.networkId) {
      return { reason: `network ID ${message.networkId} is not this signer's network ${this.networkId}`, final: true };
    }
    if (!this.allowed.some((c) => bytesEqual(c, message.sourceChainId))) {
      return { reason: `source chain ${idToString(message.sourceChainId)} is not one this signer signs for`, final: true };
    }
    return { reason: null, final: true };
  }
}

/**
 * Allows only messages the validator's own node has accepted: `warp_getMessage(messageID)` on the
 * source chain must return the same bytes. Compose it after a StaticPolicy so that only allowed
 * chains reach the node.
 */
export class NodeConfirmedPolicy implements SigningPolicy {
  readonly nodeUrl: string;
  private readonly evm: EvmWarpClient;

  constructor(nodeUrl: string, timeoutMs?: number) {
    const transport = signerNodeTransport(nodeUrl, 'confirmWithNode', timeoutMs);
    this.nodeUrl = transport.baseUrl;
    this.evm = new EvmWarpClient(transport);
  }

  async check(message: UnsignedMessage): Promise<string | null> {
    return (await this.decide(message)).reason;
  }

  // An accepted message stays accepted, so an allow is final; a refusal is not (the node may
  // accept the message a moment later, or answer next time).
  async decide(message: UnsignedMessage): Promise<Verdict> {
    const refuse = (reason: string): Verdict => ({ reason, final: false });
    const id = idToString(message.id);
    let bytes: Uint8Array;
    try {
      bytes = await this.evm.getMessage(message.sourceChainId, message.id);
    } catch (err) {
      if (!(err instanceof NodeError)) throw err;
      return refuse(err.kind === 'rpc' ? `the node does not confirm message ${id}: ${err.atUrl()}` : `could not confirm message ${id} with the node: ${err.atUrl()}`);
    }
    if (!bytesEqual(bytes, message.bytes)) return refuse(`the node holds different bytes for message ${id}`);
    return { reason: null, final: true };
  }
}

/** All policies must allow; they are asked in order and the first refusal wins. */
export class AllPolicies implements SigningPolicy {
  constructor(private readonly policies: readonly SigningPolicy[]) {
    if (policies.length === 0) throw new PolicyError('at least one policy is required');
  }

  async check(message: UnsignedMessage, justification: Uint8Array): Promise<string | null> {
    return (await this.decide(message, justification)).reason;
  }

  /** The first refusal with its own finality; an allow is final only when every allow was. */
  async decide(message: UnsignedMessage, justification: Uint8Array): Promise<Verdict> {
    let final = true;
    for (const policy of this.policies) {
      const verdict = await decideWith(policy, message, justification);
      if (verdict.reason !== null) return verdict;
      final &&= verdict.final;
    }
    return { reason: null, final };
  }
}
