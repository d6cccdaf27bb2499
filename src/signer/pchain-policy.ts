// What a validator may sign for the P-Chain (source chain = 32 zero bytes): only ACP-77 L1
// messages that the P-Chain's current state makes true, by the rules avalanchego's validators
// apply (vms/platformvm/network/warp.go, protocol.md section 6). The state is read over the
// node's P-Chain JSON-RPC API:
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
// Any doubt (the node unreachable, an answer it cannot read) is a refusal carrying the reason.
import { sha256 } from '@noble/hashes/sha2.js';
import { ID_LENGTH, idToString, parseCb58Id, P_CHAIN_ID } from '../warp/cb58.js';
import { WarpFormatError } from '../warp/errors.js';
import { bytesEqual } from '../warp/hex.js';
import { decodeL1ValidatorRegistrationJustification } from '../warp/justification.js';
import { parseL1Message, parsePChainMessage, validationIdFromIndex, type L1Message } from '../warp/l1-messages.js';
import { DEFAULT_NODE_TIMEOUT_MS, parseNodeUrl, postJsonRpc } from './node-rpc.js';
import { PolicyError } from './policy.js';
import type { SigningPolicy, UnsignedMessage } from './types.js';

const ZERO_ID: Uint8Array = new Uint8Array(ID_LENGTH);

export interface PChainPolicyOptions {
  /** The only network whose P-Chain messages are signed. */
  networkId: number;
  /** The node's base URL (`http://127.0.0.1:9650`); the P-Chain is at `/ext/bc/P`. */
  nodeUrl: string;
  /** Deadline of one node call. */
  timeoutMs?: number;
  /**
   * Decides messages from every other source chain (e.g. a StaticPolicy for the validator's own
   * chains). Without it they are refused.
   */
  otherChains?: SigningPolicy;
}

/** A node call that did not produce a usable result; `notFound` when the node said it has no such thing. */
class PChainQueryError extends Error {
  override readonly name = 'PChainQueryError';
  constructor(
    readonly method: string,
    readonly notFound: boolean,
    detail: string,
  ) {
    super(`${method}: ${detail}`);
  }
}

/** Thrown inside a check to refuse with `reason`; check() turns it into its answer. */
class Refusal extends Error {
  override readonly name = 'Refusal';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A uint64 the node prints as a decimal string (or a small JSON number). */
function readUint64(result: Record<string, unknown>, field: string, method: string): bigint {
  const v = result[field];
  if (typeof v === 'string' && /^\d{1,20}$/.test(v) && BigInt(v) < 1n << 64n) return BigInt(v);
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  throw new PChainQueryError(method, false, `the answer's ${field} is not a uint64: ${JSON.stringify(v)}`);
}

export class PChainPolicy implements SigningPolicy {
  readonly networkId: number;
  readonly pchainUrl: string;
  private readonly timeoutMs: number;
  private readonly otherChains: SigningPolicy | undefined;
  private nextId = 1;

  constructor(opts: PChainPolicyOptions) {
    if (!Number.isInteger(opts.networkId) || opts.networkId < 0 || opts.networkId > 0xffff_ffff) {
      throw new PolicyError(`networkId must be an integer from 0 to 4294967295, got ${opts.networkId}`);
    }
    let base: string;
    try {
      base = parseNodeUrl(opts.nodeUrl, 'P-Chain node URL');
    } catch (err) {
      throw new PolicyError((err as Error).message);
    }
    this.networkId = opts.networkId;
    this.pchainUrl = `${base}/ext/bc/P`;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_NODE_TIMEOUT_MS;
    this.otherChains = opts.otherChains;
  }

  async check(message: UnsignedMessage, justification: Uint8Array): Promise<string | null> {
    if (!bytesEqual(message.sourceChainId, P_CHAIN_ID)) {
      if (this.otherChains) return this.otherChains.check(message, justification);
      return `source chain ${idToString(message.sourceChainId)} is not the P-Chain, the only chain this policy signs for`;
    }
    if (message.networkId !== this.networkId) {
      return `network ID ${message.networkId} is not this signer's network ${this.networkId}`;
    }
    let l1: L1Message;
    try {
      l1 = parsePChainMessage(message);
    } catch (err) {
      if (err instanceof WarpFormatError) return `not a P-Chain L1 message: ${err.message}`;
      throw err;
    }
    try {
      await this.checkL1Message(l1, justification);
      return null;
    } catch (err) {
      if (err instanceof Refusal) return err.message;
      if (err instanceof PChainQueryError) return `cannot check against the P-Chain: ${err.message}`;
      throw err;
    }
  }

  private async checkL1Message(msg: L1Message, justification: Uint8Array): Promise<void> {
    switch (msg.type) {
      case 'SubnetToL1Conversion':
        return this.checkConversion(msg.conversionId, justification);
      case 'RegisterL1Validator':
        throw new Refusal("the P-Chain does not sign RegisterL1Validator messages (they come from the L1's validator manager)");
      case 'L1ValidatorRegistration':
        return msg.registered ? this.checkRegistered(msg.validationId) : this.checkNotRegistered(msg.validationId, justification);
      case 'L1ValidatorWeight':
        return this.checkWeight(msg.validationId, msg.nonce, msg.weight);
    }
  }

  private async checkConversion(conversionId: Uint8Array, justification: Uint8Array): Promise<void> {
    if (justification.length !== ID_LENGTH) {
      throw new Refusal(`a SubnetToL1Conversion needs the 32-byte subnet ID as its justification, got ${justification.length} bytes`);
    }
    const actual = await this.conversionIdOf(justification);
    if (!bytesEqual(actual, conversionId)) {
      throw new Refusal(
        `conversionID ${idToString(conversionId)} does not match subnet ${idToString(justification)}'s conversion ${idToString(actual)}`,
      );
    }
  }

  private async checkRegistered(validationId: Uint8Array): Promise<void> {
    if (!(await this.l1Validator(validationId))) {
      throw new Refusal(`L1 validator ${idToString(validationId)} is not registered on the P-Chain`);
    }
  }

  private async checkNotRegistered(validationId: Uint8Array, justification: Uint8Array): Promise<void> {
    let preimage;
    try {
      preimage = decodeL1ValidatorRegistrationJustification(justification);
    } catch (err) {
      if (err instanceof WarpFormatError) throw new Refusal(`unregistration needs an L1ValidatorRegistrationJustification: ${err.message}`);
      throw err;
    }
    const id = idToString(validationId);
    if (preimage.type === 'SubnetIdIndex') {
      if (!bytesEqual(validationIdFromIndex(preimage.subnetId, preimage.index), validationId)) {
        throw new Refusal(`the justification (subnet ${idToString(preimage.subnetId)}, index ${preimage.index}) does not determine validationID ${id}`);
      }
      // Throws a refusal when the subnet was never converted.
      await this.conversionIdOf(preimage.subnetId);
      if (await this.l1Validator(validationId)) throw new Refusal(`L1 validator ${id} is still registered`);
      return;
    }
    if (!bytesEqual(sha256(preimage.message), validationId)) {
      throw new Refusal(`the justification's RegisterL1Validator message does not hash to validationID ${id}`);
    }
    let register;
    try {
      register = parseL1Message(preimage.message);
    } catch (err) {
      if (err instanceof WarpFormatError) throw new Refusal(`the justification's register message is malformed: ${err.message}`);
      throw err;
    }
    if (register.type !== 'RegisterL1Validator') {
      throw new Refusal(`the justification's register message is a ${register.type}, not a RegisterL1Validator`);
    }
    if (await this.l1Validator(validationId)) throw new Refusal(`L1 validator ${id} is still registered`);
    const now = await this.timestamp();
    if (register.expiry > now) {
      throw new Refusal(`L1 validator ${id} could still be registered: its registration expires at ${register.expiry}, the P-Chain's time is ${now}`);
    }
  }

  private async checkWeight(validationId: Uint8Array, nonce: bigint, weight: bigint): Promise<void> {
    const id = idToString(validationId);
    if (weight === 0n) throw new Refusal('an L1ValidatorWeight with weight 0 is not signed (removal is confirmed by an L1ValidatorRegistration)');
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
    const subnet = idToString(subnetId);
    let result: Record<string, unknown>;
    try {
      result = await this.call('platform.getSubnet', { subnetID: subnet });
    } catch (err) {
      if (err instanceof PChainQueryError && err.notFound) throw new Refusal(`subnet ${subnet} is not known to the P-Chain`);
      throw err;
    }
    const raw = result.conversionID;
    let id = ZERO_ID;
    if (raw !== undefined && raw !== null) {
      try {
        id = parseCb58Id(String(raw), 'conversionID');
      } catch {
        throw new PChainQueryError('platform.getSubnet', false, `the answer's conversionID is not a cb58 ID: ${JSON.stringify(raw)}`);
      }
    }
    if (bytesEqual(id, ZERO_ID)) throw new Refusal(`subnet ${subnet} has not been converted to an L1`);
    return id;
  }

  /** The L1 validator's weight and minNonce, or undefined when the P-Chain has no such validator. */
  private async l1Validator(validationId: Uint8Array): Promise<{ weight: bigint; minNonce: bigint } | undefined> {
    const method = 'platform.getL1Validator';
    try {
      const result = await this.call(method, { validationID: idToString(validationId) });
      return { weight: readUint64(result, 'weight', method), minNonce: readUint64(result, 'minNonce', method) };
    } catch (err) {
      if (err instanceof PChainQueryError && err.notFound) return undefined;
      throw err;
    }
  }

  /** The P-Chain's current time, Unix seconds. */
  private async timestamp(): Promise<bigint> {
    const method = 'platform.getTimestamp';
    const result = await this.call(method, {});
    const ms = typeof result.timestamp === 'string' ? Date.parse(result.timestamp) : NaN;
    if (!Number.isFinite(ms)) throw new PChainQueryError(method, false, `the answer's timestamp is not a time: ${JSON.stringify(result.timestamp)}`);
    return BigInt(Math.floor(ms / 1000));
  }

  /** One JSON-RPC call with a deadline and a size cap; resolves with the result object. */
  private async call(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    let answer: { status: number; text: string };
    try {
      answer = await postJsonRpc(this.pchainUrl, this.nextId++, method, params, this.timeoutMs);
    } catch (err) {
      throw new PChainQueryError(method, false, `node unreachable at ${this.pchainUrl}: ${(err as Error).message}`);
    }
    const { status, text } = answer;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new PChainQueryError(method, false, `HTTP ${status} with an answer that is not JSON`);
    }
    if (!isRecord(body)) throw new PChainQueryError(method, false, 'the answer is not a JSON-RPC object');
    if (body.error !== undefined && body.error !== null) {
      const message = isRecord(body.error) && typeof body.error.message === 'string' ? body.error.message : JSON.stringify(body.error);
      // avalanchego reports a missing subnet or validator as database.ErrNotFound ("not found").
      throw new PChainQueryError(method, /\bnot found\b/.test(message), `the node answered: ${message}`);
    }
    if (status !== 200) throw new PChainQueryError(method, false, `HTTP ${status}`);
    if (!isRecord(body.result)) throw new PChainQueryError(method, false, 'the answer has no result object');
    return body.result;
  }
}
