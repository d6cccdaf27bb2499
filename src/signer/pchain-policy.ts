// What a validator may sign for the P-Chain (source chain = 32 zero bytes): only ACP-77 L1
// messages that the P-Chain's current state makes true, by the rules avalanchego's validators
// apply (vms/platformvm/network/warp.go, protocol.md section 6), reading justifications by the
// rules the service's message builder uses too (l1/justification.ts). The state is read over the
// node's P-Chain JSON-RPC API (node/pchain.ts):
//
//   SubnetToL1Conversion(id), justification = subnetID  platform.getSubnet: conversionID === id
//   L1ValidatorRegistration(v, true)                    platform.getL1Validator(v) exists
//   L1ValidatorRegistration(v, false) + SubnetIDIndex    v = sha256(subnet ‖ index), subnet converted,
//                                                        v does not exist
//   L1ValidatorRegistration(v, false) + RegisterL1Validator message
//                                                        v = sha256(message), v does not exist, and
//                                                        its expiry has passed (platform.getTimestamp)
//   L1ValidatorWeight(v, n, w)                           w ≠ 0, v exists, n + 1 = minNonce, w = weight
//
// avalanchego also signs a registration(false) whose expiry has not passed when its own expiry
// index shows the validator was registered and then removed; that index is not served over
// JSON-RPC, so this policy refuses those (refusing is always safe, signing never is).
//
// Any doubt (the node unreachable, an answer it cannot read) is a refusal carrying the reason. So
// is a node that has not finished bootstrapping the P-Chain (its state is behind) or that is on
// another network than the message (its P-Chain is another chain): node-facts.ts.
//
// The node is read in several calls, and a block may be accepted between any two of them, so each
// check reads in the order that keeps its conclusion true whatever lands in between (see
// checkNotRegistered and checkNeverValidator). This holds only if every call goes to the same node,
// whose accepted state only moves forward: pchainNode must be one node, not a load balancer.
//
// Verdicts say whether they are final (types.ts) so that the signer can cache them: an allow that
// rests on state that never changes back (a conversion, an expiry that has passed) is final; one
// that rests on state that moves (a validator's weight, its being registered) is not, and neither
// is a refusal that rests on state or on a failure.
import { ID_LENGTH, idToString } from '../warp/cb58.js';
import { WarpFormatError } from '../warp/errors.js';
import { bytesEqual } from '../warp/hex.js';
import { parsePChainMessage, type L1Message } from '../warp/l1-messages.js';
import { L1RequestError } from '../l1/errors.js';
import { conversionIdOfSubnet, readRegistrationJustification, type RegistrationJustification } from '../l1/justification.js';
import { NodeError, UnknownL1ValidatorError } from '../node/errors.js';
import { InfoClient } from '../node/info.js';
import { PChainClient } from '../node/pchain.js';
import { NodeFacts } from './node-facts.js';
import { signerNodeTransport } from './node-transport.js';
import { decideWith, isPChain, PolicyError } from './policy.js';
import type { SigningPolicy, UnsignedMessage, Verdict } from './types.js';

export interface PChainPolicyOptions {
  /** The only network whose P-Chain messages are signed. */
  networkId: number;
  /** The node's base URL (`http://127.0.0.1:9650`); the P-Chain is at `/ext/bc/P`, info at `/ext/info`. */
  nodeUrl: string;
  /** Deadline of one node call. */
  timeoutMs?: number;
  /** How long the node's network ID and "bootstrapped" are remembered (node-facts.ts); default 5 s. */
  nodeFactsTtlMs?: number;
  /** Clock for that memory, in ms; tests pass their own. */
  now?: () => number;
  /**
   * Decides messages from every other source chain (e.g. a StaticPolicy for the validator's own
   * chains). Without it they are refused.
   */
  otherChains?: SigningPolicy;
}

/** Thrown inside a check to refuse with `reason`; decide() turns it into its verdict. */
class Refusal extends Error {
  override readonly name = 'Refusal';
  constructor(
    reason: string,
    /** True only when the refusal follows from the bytes, or from state that never changes back. */
    readonly final = false,
  ) {
    super(reason);
  }
}

/** A refusal that follows from the message and justification alone. */
const malformed = (reason: string): Refusal => new Refusal(reason, true);

export class PChainPolicy implements SigningPolicy {
  readonly networkId: number;
  readonly pchainUrl: string;
  private readonly nodeUrl: string;
  private readonly pchain: PChainClient;
  private readonly otherChains: SigningPolicy | undefined;
  private readonly facts: NodeFacts;

  constructor(opts: PChainPolicyOptions) {
    if (!Number.isInteger(opts.networkId) || opts.networkId < 0 || opts.networkId > 0xffff_ffff) {
      throw new PolicyError(`networkId must be an integer from 0 to 4294967295, got ${opts.networkId}`);
    }
    let node;
    try {
      node = signerNodeTransport(opts.nodeUrl, 'P-Chain node URL', opts.timeoutMs);
    } catch (err) {
      throw new PolicyError((err as Error).message);
    }
    this.networkId = opts.networkId;
    this.nodeUrl = node.baseUrl;
    this.pchain = new PChainClient(node);
    this.pchainUrl = this.pchain.url;
    this.otherChains = opts.otherChains;
    this.facts = new NodeFacts({
      info: new InfoClient(node),
      ...(opts.nodeFactsTtlMs === undefined ? {} : { ttlMs: opts.nodeFactsTtlMs }),
      ...(opts.now ? { now: opts.now } : {}),
    });
  }

  async check(message: UnsignedMessage, justification: Uint8Array): Promise<string | null> {
    return (await this.decide(message, justification)).reason;
  }

  async decide(message: UnsignedMessage, justification: Uint8Array): Promise<Verdict> {
    if (!isPChain(message.sourceChainId)) {
      if (this.otherChains) return decideWith(this.otherChains, message, justification);
      return { reason: `source chain ${idToString(message.sourceChainId)} is not the P-Chain, the only chain this policy signs for`, final: true };
    }
    if (message.networkId !== this.networkId) {
      return { reason: `network ID ${message.networkId} is not this signer's network ${this.networkId}`, final: true };
    }
    let l1: L1Message;
    try {
      l1 = parsePChainMessage(message);
    } catch (err) {
      if (err instanceof WarpFormatError) return { reason: `not a P-Chain L1 message: ${err.message}`, final: true };
      throw err;
    }
    try {
      return { reason: null, final: await this.checkL1Message(l1, justification) };
    } catch (err) {
      if (err instanceof Refusal) return { reason: err.message, final: err.final };
      if (err instanceof NodeError) return { reason: `cannot check against the P-Chain: ${err.atUrl()}`, final: false };
      throw err;
    }
  }

  /** Resolves when the message is true, with whether that can ever change; throws a Refusal otherwise. */
  private async checkL1Message(msg: L1Message, justification: Uint8Array): Promise<boolean> {
    switch (msg.type) {
      case 'SubnetToL1Conversion':
        await this.checkConversion(msg.conversionId, justification);
        // A subnet is converted once; its conversionID never changes.
        return true;
      case 'RegisterL1Validator':
        throw malformed("the P-Chain does not sign RegisterL1Validator messages (they come from the L1's validator manager)");
      case 'L1ValidatorRegistration':
        if (msg.registered) {
          await this.checkRegistered(msg.validationId);
          // The validator may be removed at any time.
          return false;
        }
        await this.checkNotRegistered(msg.validationId, justification);
        // A validation ID that is gone for good stays gone (see checkNotRegistered).
        return true;
      case 'L1ValidatorWeight':
        await this.checkWeight(msg.validationId, msg.nonce, msg.weight);
        // The next weight change makes it stale.
        return false;
    }
  }

  private async checkConversion(conversionId: Uint8Array, justification: Uint8Array): Promise<void> {
    if (justification.length !== ID_LENGTH) {
      throw malformed(`a SubnetToL1Conversion needs the 32-byte subnet ID as its justification, got ${justification.length} bytes`);
    }
    const actual = await this.conversionIdOf(justification);
    if (!bytesEqual(actual, conversionId)) {
      throw new Refusal(
        `conversionID ${idToString(conversionId)} does not match subnet ${idToString(justification)}'s conversion ${idToString(actual)}`,
        true,
      );
    }
  }

  private async checkRegistered(validationId: Uint8Array): Promise<void> {
    if (!(await this.l1Validator(validationId))) {
      throw new Refusal(`L1 validator ${idToString(validationId)} is not registered on the P-Chain`);
    }
  }

  /** L1ValidatorRegistration(false): the validation ID is not a validator and never can be again. */
  private async checkNotRegistered(validationId: Uint8Array, justification: Uint8Array): Promise<void> {
    let said: RegistrationJustification;
    try {
      said = readRegistrationJustification(justification);
    } catch (err) {
      if (err instanceof WarpFormatError) throw malformed(`unregistration needs an L1ValidatorRegistrationJustification: ${err.message}`);
      if (err instanceof L1RequestError) throw malformed(err.message);
      throw err;
    }
    const id = idToString(validationId);
    if (!bytesEqual(said.validationId, validationId)) {
      throw malformed(
        said.kind === 'subnet-index'
          ? `the justification (subnet ${idToString(said.subnetId)}, index ${said.index}) does not determine validationID ${id}`
          : `the justification's RegisterL1Validator message does not hash to validationID ${id}`,
      );
    }
    if (said.kind === 'subnet-index') {
      // The conversion first, then the validator. Only the subnet's conversion creates IDs made
      // from (subnet, index), all at once. Once the conversion is seen, a later read that misses
      // the validator means it was removed, and a removed ID never comes back. Read the other way
      // round, the conversion could be accepted between the two calls and create the validator
      // that the first call had just missed.
      await this.conversionIdOf(said.subnetId); // refuses when the subnet was never converted
      if (await this.l1Validator(validationId)) throw new Refusal(`L1 validator ${id} is still registered`);
      return;
    }
    const { register } = said;
    // The P-Chain's time first, then the validator. avalanchego answers from one locked snapshot
    // (vms/platformvm/network/warp.go); we read in two calls, and blocks may be accepted between
    // them. The P-Chain accepts a RegisterL1ValidatorTx only while its expiry is still ahead of
    // the block's time, and block times never go back. So once the time we read has reached the
    // expiry, no later block can register this validation ID, and a later read that finds no
    // validator finds it gone for good (never registered, or registered and since removed, which
    // avalanchego also signs). Read the other way round, one block between the calls could
    // register the validator (before its expiry) and another move the time past the expiry: we
    // would combine "absent" from before with "expired" from after, and sign that a registered
    // validator is not one.
    const now = await this.timestamp();
    if (await this.l1Validator(validationId)) throw new Refusal(`L1 validator ${id} is still registered`);
    if (register.expiry > now) {
      // avalanchego also signs here when its expiry index shows the ID was registered and removed;
      // that index is not served over JSON-RPC, so this refuses (see the top of this file).
      throw new Refusal(`L1 validator ${id} could still be registered: its registration expires at ${register.expiry}, the P-Chain's time is ${now}`);
    }
  }

  private async checkWeight(validationId: Uint8Array, nonce: bigint, weight: bigint): Promise<void> {
    const id = idToString(validationId);
    if (weight === 0n) throw malformed('an L1ValidatorWeight with weight 0 is not signed (removal is confirmed by an L1ValidatorRegistration)');
    const current = await this.l1Validator(validationId);
    if (!current) throw new Refusal(`L1 validator ${id} is not registered on the P-Chain`);
    if (nonce + 1n !== current.minNonce) {
      throw new Refusal(`nonce ${nonce} is not the last one applied to L1 validator ${id} (its minNonce is ${current.minNonce}, so the P-Chain signs nonce ${current.minNonce - 1n})`);
    }
    if (weight !== current.weight) {
      throw new Refusal(`weight ${weight} is not L1 validator ${id}'s current weight ${current.weight}`);
    }
  }

  // --- P-Chain state ---------------------------------------------------------------------------

  /** The subnet's conversionID; refuses when the subnet is unknown or not converted. */
  private async conversionIdOf(subnetId: Uint8Array): Promise<Uint8Array> {
    try {
      return await this.read(() => conversionIdOfSubnet(this.pchain, subnetId));
    } catch (err) {
      if (err instanceof L1RequestError) throw new Refusal(err.message);
      throw err;
    }
  }

  /** The L1 validator's weight and minNonce, or undefined when the P-Chain has no such validator. */
  private async l1Validator(validationId: Uint8Array): Promise<{ weight: bigint; minNonce: bigint } | undefined> {
    try {
      return await this.read(() => this.pchain.getL1Validator(validationId));
    } catch (err) {
      if (err instanceof UnknownL1ValidatorError) return undefined;
      throw err;
    }
  }

  /** The P-Chain's current time, Unix seconds. */
  private timestamp(): Promise<bigint> {
    return this.read(() => this.pchain.getTimestamp());
  }

  /** Reads P-Chain state, once the node is known to serve this network's bootstrapped P-Chain. */
  private async read<T>(call: () => Promise<T>): Promise<T> {
    try {
      await this.requireUsableNode();
      return await call();
    } catch (err) {
      // It may come back restarted (bootstrapping again) or reconfigured: ask again then.
      if (err instanceof NodeError && (err.kind === 'unreachable' || err.kind === 'timeout')) this.facts.forget();
      throw err;
    }
  }

  private async requireUsableNode(): Promise<void> {
    const [network, bootstrapped] = await Promise.all([this.facts.networkId(), this.facts.bootstrapped()]);
    if (network !== this.networkId) {
      throw new Refusal(`the node at ${this.nodeUrl} is on network ${network}, not ${this.networkId}: its P-Chain is not this message's`);
    }
    if (!bootstrapped) {
      throw new Refusal(`the node at ${this.nodeUrl} has not finished bootstrapping the P-Chain, so its state may be behind`);
    }
  }
}
