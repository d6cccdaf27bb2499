// The node's P-Chain API (POST {node}/ext/bc/P, protocol.md section 5), over the one transport
// (transport.ts: deadlines, retries on transport errors only, size cap, lossless numbers).
// avalanchego's answers that mean "no such chain / subnet / L1 validator / height yet" become
// typed errors (UnknownChainError, UnknownSubnetError, UnknownL1ValidatorError,
// UnfinalizedHeightError): facts about what the caller asked for, not the node's failure.
import { idToString, PRIMARY_NETWORK_ID } from '../warp/cb58.js';
import { bytesEqual } from '../warp/hex.js';
import { NodeError, UnfinalizedHeightError, UnknownChainError, UnknownL1ValidatorError, UnknownSubnetError } from './errors.js';
import { parseCurrentValidatorsDetailed, parseValidatorsAtResult, type PChainValidator } from './pchain-results.js';
import {
  readHeight,
  readL1Validator,
  readSubnet,
  readTimestamp,
  readTx,
  readTxStatus,
  readValidatedBy,
  type L1ValidatorState,
  type SubnetInfo,
  type TxStatus,
} from './pchain-state-results.js';
import { JsonRpcTransport, type CallOptions, type NodeClientOptions } from './transport.js';

const PATH = '/ext/bc/P';

// avalanchego's error texts for a thing that does not exist (vms/platformvm/validators/manager.go
// makeValidatorSet and GetSubnetID, state/state.go GetSubnetOwner and GetL1Validator;
// database.ErrNotFound reads "not found"). They arrive as JSON-RPC error -32000 with the text as
// the message.
/** `failed to get validator set at H: failed to fetch validator set at unfinalized height with SubnetID = S: current P-chain height (C) < requested P-Chain height (H)` */
const UNFINALIZED_HEIGHT = /failed to fetch validator set at unfinalized height.*current P-chain height \((\d+)\) < requested P-Chain height/;
/** `problem retrieving blockchain "ID": not found`, or `"ID" is not a blockchain` for a transaction that is not a CreateChainTx. */
const UNKNOWN_BLOCKCHAIN = /^problem retrieving blockchain "[^"]*": not found$|^"[^"]*" is not a blockchain$/;
/** `not found`, or `"ID" is not a subnet` for a transaction that is not a CreateSubnetTx. */
const UNKNOWN_SUBNET = /^not found$|^"[^"]*" is not a subnet$/;
/** `fetching L1 validator "ID" failed: not found` (service.go GetL1Validator wrapping database.ErrNotFound). */
const UNKNOWN_L1_VALIDATOR = /\bnot found$/;

/** What a JSON-RPC error answer (its text, and the NodeError it became) means for the caller, if anything. */
type AnswerMeaning = (answer: string, err: NodeError) => Error | undefined;

export class PChainClient {
  /** The P-Chain endpoint, `{node}/ext/bc/P`. */
  readonly url: string;
  private readonly rpc: JsonRpcTransport;

  /** On a transport shared with the node's other APIs, or on one of its own. */
  constructor(node: JsonRpcTransport | NodeClientOptions) {
    this.rpc = node instanceof JsonRpcTransport ? node : new JsonRpcTransport(node);
    this.url = this.rpc.baseUrl + PATH;
  }

  /** Any P-Chain method; resolves with its raw `result` (numbers beyond 2^53 as decimal strings). */
  call(method: string, params: Record<string, unknown> = {}, opts: CallOptions = {}): Promise<unknown> {
    return this.rpc.call(PATH, method, params, opts);
  }

  /** A typed call; an error answer that `meaning` recognizes rejects with the error it makes instead. */
  private async typed<T>(method: string, params: Record<string, unknown>, read: (result: unknown) => T, opts: CallOptions, meaning?: AnswerMeaning): Promise<T> {
    try {
      return await this.rpc.typed(PATH, method, params, read, opts);
    } catch (err) {
      const meant = meaning && err instanceof NodeError && err.kind === 'rpc' ? meaning(err.nodeMessage ?? '', err) : undefined;
      throw meant ?? err;
    }
  }

  /** The height of the last accepted P-Chain block. */
  getHeight(opts: CallOptions = {}): Promise<number> {
    return this.typed('platform.getHeight', {}, readHeight, opts);
  }

  /** The height validators sign at by default (protocol.md section 5). */
  getProposedHeight(opts: CallOptions = {}): Promise<number> {
    return this.typed('platform.getProposedHeight', {}, readHeight, opts);
  }

  /** The time of the last accepted block, Unix seconds (platform.getTimestamp). */
  getTimestamp(opts: CallOptions = {}): Promise<bigint> {
    return this.typed('platform.getTimestamp', {}, readTimestamp, opts);
  }

  /**
   * The subnet's current validators. For a permissioned (non-L1) subnet the result lists its
   * validators without keys; their keys are their Primary Network registrations, fetched with a
   * second call filtered to those node IDs, as the P-Chain's own validator set does.
   */
  async getCurrentValidators(subnetId: Uint8Array, opts: CallOptions = {}): Promise<PChainValidator[]> {
    const method = 'platform.getCurrentValidators';
    const { entries, keysOnPrimaryNetwork } = await this.typed(method, { subnetID: idToString(subnetId) }, parseCurrentValidatorsDetailed, opts);
    if (keysOnPrimaryNetwork.length === 0 || bytesEqual(subnetId, PRIMARY_NETWORK_ID)) return entries;

    const primary = await this.typed(
      method,
      { subnetID: idToString(PRIMARY_NETWORK_ID), nodeIDs: keysOnPrimaryNetwork },
      parseCurrentValidatorsDetailed,
      opts,
    );
    const keyOf = new Map(primary.entries.map((e) => [e.nodeId, e.publicKey] as const));
    const lookedUp = new Set(keysOnPrimaryNetwork);
    return entries.map((e) => (lookedUp.has(e.nodeId) ? { ...e, publicKey: keyOf.get(e.nodeId) ?? null } : e));
  }

  /**
   * The subnet's validator set at a P-Chain height, or at the proposed height. A height above the
   * node's last accepted block rejects with UnfinalizedHeightError. (An unknown subnet has an
   * empty set: avalanchego answers `{}` for it.)
   */
  getValidatorsAt(height: number | 'proposed', subnetId: Uint8Array, opts: CallOptions = {}): Promise<PChainValidator[]> {
    if (height !== 'proposed' && (!Number.isSafeInteger(height) || height < 0)) {
      throw new RangeError(`P-Chain height must be a non-negative integer or 'proposed', got ${height}`);
    }
    return this.typed('platform.getValidatorsAt', { height, subnetID: idToString(subnetId) }, parseValidatorsAtResult, opts, (answer) => {
      const unfinalized = UNFINALIZED_HEIGHT.exec(answer);
      return unfinalized && height !== 'proposed' ? new UnfinalizedHeightError(height, Number(unfinalized[1])) : undefined;
    });
  }

  /**
   * The subnet that validates a blockchain: the default signing subnet of its messages. A chain
   * the node does not know rejects with UnknownChainError.
   */
  validatedBy(blockchainId: Uint8Array, opts: CallOptions = {}): Promise<Uint8Array> {
    const chain = idToString(blockchainId);
    return this.typed('platform.validatedBy', { blockchainID: chain }, readValidatedBy, opts, (answer) =>
      UNKNOWN_BLOCKCHAIN.test(answer) ? new UnknownChainError(chain, answer) : undefined,
    );
  }

  /** A subnet's owner and L1 fields. A subnet the node does not know rejects with UnknownSubnetError. */
  getSubnet(subnetId: Uint8Array, opts: CallOptions = {}): Promise<SubnetInfo> {
    const subnet = idToString(subnetId);
    return this.typed('platform.getSubnet', { subnetID: subnet }, readSubnet, opts, (answer) =>
      UNKNOWN_SUBNET.test(answer) ? new UnknownSubnetError(subnet, answer) : undefined,
    );
  }

  /**
   * An L1 validator's subnet, weight and minNonce. One the P-Chain does not have (never
   * registered, or removed) rejects with UnknownL1ValidatorError.
   */
  getL1Validator(validationId: Uint8Array, opts: CallOptions = {}): Promise<L1ValidatorState> {
    const id = idToString(validationId);
    return this.typed('platform.getL1Validator', { validationID: id }, readL1Validator, opts, (answer, err) =>
      UNKNOWN_L1_VALIDATOR.test(answer) ? new UnknownL1ValidatorError(id, err) : undefined,
    );
  }

  /** The transaction's bytes (hex encoding; its 4-byte checksum verified and removed). */
  getTx(txId: Uint8Array, encoding: 'hex', opts?: CallOptions): Promise<Uint8Array>;
  /** The transaction as JSON: `{unsignedTx, credentials, id}`. Large integers arrive as strings. */
  getTx(txId: Uint8Array, encoding: 'json', opts?: CallOptions): Promise<Record<string, unknown>>;
  getTx(txId: Uint8Array, encoding: 'json' | 'hex', opts: CallOptions = {}): Promise<Uint8Array | Record<string, unknown>> {
    return this.typed('platform.getTx', { txID: idToString(txId), encoding }, (result) => readTx(result, encoding), opts);
  }

  getTxStatus(txId: Uint8Array, opts: CallOptions = {}): Promise<{ status: TxStatus; reason?: string }> {
    return this.typed('platform.getTxStatus', { txID: idToString(txId) }, readTxStatus, opts);
  }
}
