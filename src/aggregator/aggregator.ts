// The aggregation engine behind both HTTP APIs: resolve the signing subnet (refusing one the
// service does not serve), choose the P-Chain height to sign at (validators/signing-height.ts: the
// client's, the destination chain's epoch, or the proposed height), read the canonical validator
// set there, take what the signature cache has, collect the rest from signer peers, and build
// the signed message. Identical concurrent requests share one collection; the number of
// collections at once is capped. Each aggregation is bounded by its deadline (deadline.ts) from
// the request's arrival: the P-Chain reads stop waiting when it passes, collecting stops a little
// before it, and the answer (even one stuck behind a busy worker pool) never comes after it.
import { bytesToHex } from '../warp/hex.js';
import { idToString, PRIMARY_NETWORK_ID } from '../warp/cb58.js';
import { bytesEqual } from '../warp/hex.js';
import { encodeSigners } from '../warp/bitset.js';
import { encodeSignedMessage } from '../warp/signed-message.js';
import { teleporterDestination } from '../warp/teleporter.js';
import type { UnsignedMessage } from '../warp/unsigned-message.js';
import { requiredWeight } from '../validators/quorum.js';
import type { CanonicalSet } from '../validators/canonical-set.js';
import type { ChainEpoch } from '../validators/epoch-cache.js';
import { chooseSigningHeight, type HeightSource, type SigningHeight } from '../validators/signing-height.js';
import { Collection, CollectionLate, QuorumShortfall, type ResponseResult } from './collection.js';
import { DEFAULT_FAN_OUT, type FanOutOptions } from './fan-out.js';
import type { PeerSource } from './peer-source.js';
import { runningSums, type VerificationStrategy } from './verification.js';
import { ChosenHeightError, NoSigningValidatorsError, QuorumNotReachedError, SigningSubnetNotAllowedError, type CollectionStats } from './errors.js';
import { OverloadedError } from '../util/overloaded.js';
import { Deadline } from './deadline.js';
import { untilAborted } from '../util/abortable.js';
import type { SignatureCache } from './signature-cache.js';
import { startingSignatures, type SharedSignatures } from './shared-signatures.js';
import type { BlsVerifier } from '../bls-pool/verifier.js';

export interface AggregationRequest {
  message: UnsignedMessage;
  justification: Uint8Array;
  /** Defaults to the source chain's subnet (platform.validatedBy), or the Primary Network for P-Chain messages. */
  signingSubnetId?: Uint8Array;
  quorumPercentage: number;
  quorumPercentageBuffer: number;
  /** 0: the service chooses (the destination's epoch height, or the proposed height); otherwise the set at this P-Chain height. */
  pChainHeight: number;
  /** The chain that will verify the message; defaults to a Teleporter message's destinationBlockchainID. */
  destinationBlockchainId?: Uint8Array;
}

export interface AggregationResult {
  signedMessage: Uint8Array;
  signers: number[];
  signedWeight: bigint;
  totalWeight: bigint;
  subnetId: Uint8Array;
  /** The P-Chain height whose validator set signed, and why that one. */
  pChainHeight: number;
  heightSource: HeightSource;
  /** The destination chain whose epoch was read (the request's, or the Teleporter message's). */
  destinationBlockchainId?: Uint8Array;
  /** Signatures proven valid: the signers, and any an earlier bisection proved among those left out. */
  signaturesProven: number;
  /** Signatures that arrived and decoded but the fewest signers left out of the message (not checked, unless a bisection did). */
  signaturesLeftOut: number;
  /** Time spent checking the fewest signers' own aggregate, ms (0: no subset was needed). */
  subsetCheckMs: number;
  stats: CollectionStats;
  /** See the collection's idealMs: the time the signers themselves took; undefined when the target weight was not reached. */
  idealMs: number | undefined;
}

/**
 * Where validator sets come from (ValidatorSetCache implements it). `signal` is the caller's
 * deadline; `chosenByClient` marks a height a client asked for (bounded by the lookback).
 */
export interface ValidatorSets {
  get(subnetId: Uint8Array, pChainHeight: number, request?: { signal?: AbortSignal; chosenByClient?: boolean }): Promise<CanonicalSet>;
  signingSubnetFor(sourceChainId: Uint8Array, request?: { signal?: AbortSignal }): Promise<Uint8Array>;
  /** platform.getProposedHeight, the height signed at without a destination epoch. */
  proposedHeight(request?: { signal?: AbortSignal }): Promise<number>;
}

/** Destination chains' current epochs (EpochCache implements it). */
export interface DestinationEpochs {
  get(chainId: Uint8Array, request?: { signal?: AbortSignal }): Promise<ChainEpoch>;
}

/** One finished aggregation, as the metrics and the status page see it. */
export interface AggregationEvent {
  outcome: 'success' | 'quorum_not_reached' | 'error';
  /** From the aggregate() call to its result. */
  ms: number;
  /** The signing subnet, once it was known and served (never one aggregation.allowedSigningSubnets refuses). */
  subnetId?: Uint8Array;
  /** Weights of a success or a quorum not reached (what had signed). */
  signedWeight?: bigint;
  totalWeight?: bigint;
  /** Validators whose signatures are in the signed message. */
  signers?: number;
  /** A success's idealMs (AggregationResult). */
  idealMs?: number;
  /** On success: signatures proven, those the fewest signers left out, and the fewest signers' own check time (ms). */
  signaturesProven?: number;
  signaturesLeftOut?: number;
  subsetCheckMs?: number;
  /** The error class an 'error' ended with (DeadlineExceededError, …): a kind, never a message. */
  error?: string;
}

interface AggregatorEvents {
  /** The height an aggregation signs at was chosen (once per collection, before any peer is asked). */
  onHeight?(source: HeightSource): void;
  onResponse?(result: ResponseResult): void;
  onCache?(hit: boolean): void;
  onAggregation?(e: AggregationEvent): void;
}

export interface AggregatorOptions {
  sets: ValidatorSets;
  epochs: DestinationEpochs;
  /** Signing subnets served (hex); empty or absent: any (aggregation.allowedSigningSubnets). */
  allowedSigningSubnets?: readonly Uint8Array[];
  peers: PeerSource;
  pool: BlsVerifier;
  cache: SignatureCache;
  /** State shared with other replicas (redis.url): their signatures, one collection per identical request. */
  shared?: SharedSignatures;
  deadlineMs?: number;
  requestTimeoutMs?: number;
  maxConcurrent?: number;
  /** Sign with the fewest signers that reach quorum + buffer (aggregation.minimizeSigners). Default true. */
  minimizeSigners?: boolean;
  /** How collected signatures are checked: warpgate's running sums unless another is injected (the bench's baseline). */
  verification?: VerificationStrategy;
  /** How many validators are asked beyond the missing weight, and when a slow one is hedged. */
  fanOut?: Partial<FanOutOptions>;
  events?: AggregatorEvents;
  /** Why validators of `set` may have left this message unanswered (a transport's knowledge), added to a quorum shortfall's message. */
  explainShortfall?(set: CanonicalSet, message: Uint8Array): string | undefined;
}

export class Aggregator {
  private readonly inFlight = new Map<string, Promise<AggregationResult>>();
  private running = 0;
  readonly deadlineMs: number;
  private readonly requestTimeoutMs: number;
  private readonly maxConcurrent: number;
  private readonly verification: VerificationStrategy;
  private readonly fanOut: FanOutOptions;
  private readonly allowedSubnets: ReadonlySet<string> | null;

  constructor(private readonly opts: AggregatorOptions) {
    this.allowedSubnets = opts.allowedSigningSubnets?.length ? new Set(opts.allowedSigningSubnets.map((id) => bytesToHex(id))) : null;
    this.deadlineMs = opts.deadlineMs ?? 5_000;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 2_000;
    this.maxConcurrent = opts.maxConcurrent ?? 64;
    this.verification = opts.verification ?? runningSums;
    this.fanOut = { ...DEFAULT_FAN_OUT, ...opts.fanOut };
  }

  /** Aggregations under way (distinct collections). */
  get active(): number {
    return this.running;
  }

  /**
   * A deadline for one request, from now: pass it to `aggregate` (and to whatever the request
   * reads before, such as a P-Chain transaction) and dispose of it once answered. A caller may
   * ask for less time than the configured deadline, never for more.
   */
  startDeadline(deadlineMs: number = this.deadlineMs): Deadline {
    return new Deadline(Math.max(1, Math.min(deadlineMs, this.deadlineMs)));
  }

  /**
   * Aggregates within `opts.deadline` (the request's, started at its arrival), or within a
   * deadline starting now. Rejects with QuorumNotReachedError, DeadlineExceededError,
   * OverloadedError, NoSigningValidatorsError, SigningSubnetNotAllowedError, ChosenHeightError,
   * what reading a destination's epoch rejects with, or the validator-set errors
   * (validators/errors.ts).
   */
  aggregate(req: AggregationRequest, opts: { deadlineMs?: number; deadline?: Deadline } = {}): Promise<AggregationResult> {
    const key = [
      bytesToHex(req.message.id),
      bytesToHex(req.justification),
      req.signingSubnetId ? bytesToHex(req.signingSubnetId) : '-',
      req.pChainHeight,
      req.destinationBlockchainId ? bytesToHex(req.destinationBlockchainId) : '-',
      req.quorumPercentage,
      req.quorumPercentageBuffer,
    ].join('/');
    const shared = this.inFlight.get(key);
    // A request that joins another's collection still answers by its own deadline.
    if (shared) {
      if (opts.deadline) opts.deadline.phase = 'an identical request’s aggregation was under way';
      return untilAborted(shared, opts.deadline?.signal);
    }
    if (this.running >= this.maxConcurrent) {
      return Promise.reject(new OverloadedError(`too many aggregations under way (${this.maxConcurrent}); retry shortly`, 1));
    }
    this.running++;
    const started = performance.now();
    const own = opts.deadline ? undefined : this.startDeadline(opts.deadlineMs);
    const deadline = opts.deadline ?? own!;
    const known: { subnetId?: Uint8Array } = {};
    const work = this.run(req, deadline, known)
      .then((result) => {
        const { signedWeight, totalWeight, subnetId, idealMs } = result;
        this.opts.events?.onAggregation?.({
          outcome: 'success',
          ms: performance.now() - started,
          subnetId,
          signedWeight,
          totalWeight,
          signers: result.signers.length,
          signaturesProven: result.signaturesProven,
          signaturesLeftOut: result.signaturesLeftOut,
          subsetCheckMs: result.subsetCheckMs,
          idealMs,
        });
        return result;
      })
      .catch((err: unknown) => {
        const ms = performance.now() - started;
        if (err instanceof QuorumNotReachedError) {
          this.opts.events?.onAggregation?.({ outcome: 'quorum_not_reached', ms, subnetId: known.subnetId, signedWeight: err.signedWeight, totalWeight: err.totalWeight });
        } else {
          this.opts.events?.onAggregation?.({ outcome: 'error', ms, subnetId: known.subnetId, error: err instanceof Error ? err.name : 'unknown' });
        }
        throw err;
      })
      .finally(() => {
        own?.dispose();
        this.running--;
        this.inFlight.delete(key);
      });
    this.inFlight.set(key, work);
    return work;
  }

  /** `known` learns the signing subnet once it is resolved and served (for the events of a failure). */
  private async run(req: AggregationRequest, deadline: Deadline, known: { subnetId?: Uint8Array }): Promise<AggregationResult> {
    const { signal } = deadline;
    // Whatever a ValidatorSets does with the signal, the aggregation stops waiting when it aborts.
    const read = async <T>(phase: string, work: () => Promise<T>): Promise<T> => {
      deadline.phase = phase;
      try {
        return await untilAborted(work(), signal);
      } catch (err) {
        // A P-Chain timeout at the very moment the deadline passes is the deadline's.
        if (signal.aborted) throw signal.reason;
        throw err;
      }
    };
    const subnetId =
      req.signingSubnetId ??
      (await read('the signing subnet was being read from the P-Chain (platform.validatedBy)', () => this.defaultSubnet(req.message, signal)));
    // Before anything else is read or anyone asked. A refused subnet is not reported either: the
    // events feed the status page, and a subnet the service does not serve has no place there.
    if (this.allowedSubnets && !this.allowedSubnets.has(bytesToHex(subnetId))) throw new SigningSubnetNotAllowedError(idToString(subnetId));
    known.subnetId = subnetId;
    const destination = req.destinationBlockchainId ?? teleporterDestination(req.message) ?? undefined;
    const height = await read(this.heightPhase(req.pChainHeight, destination), () =>
      chooseSigningHeight(
        { pChainHeight: req.pChainHeight, destinationChainId: destination },
        { epochOf: (id, o) => this.opts.epochs.get(id, o), proposedHeight: (o) => this.opts.sets.proposedHeight(o) },
        { signal },
      ),
    );
    this.opts.events?.onHeight?.(height.source);
    const set = await read('the validator set was being read from the P-Chain', () => this.setAt(subnetId, height, signal));
    if (set.validators.length === 0) throw new NoSigningValidatorsError(idToString(subnetId), height.height, height.source);
    if (signal.aborted) throw signal.reason;
    // Quorum 0 needs no weight, but the collection still insists on one signer: a signed
    // message with an empty bitset verifies nowhere.
    const minimumWeight = requiredWeight(set.totalWeight, req.quorumPercentage);
    const targetWeight = requiredWeight(set.totalWeight, req.quorumPercentage + req.quorumPercentageBuffer);
    const messageIdHex = bytesToHex(req.message.id);
    const { cache, shared } = this.opts;
    const key = { messageId: req.message.id, justification: req.justification, subnetId, pChainHeight: height.height, quorumPercentage: req.quorumPercentage, quorumPercentageBuffer: req.quorumPercentageBuffer };
    const { cached, claim } = await startingSignatures({ local: cache, shared, messageIdHex, key, set, targetWeight, deadline, requestTimeoutMs: this.requestTimeoutMs });
    if (signal.aborted) {
      void claim?.release();
      throw signal.reason;
    }
    deadline.phase = 'signatures were being collected';
    this.opts.events?.onCache?.(cached.size > 0);
    // Proven signatures go to this replica's cache and the shared one, and the lease (if held) is
    // released only once they are written: a waiting replica then finds them.
    // Signatures that came from the caches are not written again (the same objects: the ledger keeps what it was given).
    const keep = (verified: Map<string, Uint8Array>): void => {
      if (verified.size > 0) cache.add(messageIdHex, verified);
      const fresh = new Map([...verified].filter(([pk, sig]) => cached.get(pk) !== sig));
      const written = shared && fresh.size > 0 ? shared.write(messageIdHex, fresh) : Promise.resolve();
      if (claim) void written.then(() => claim.release());
    };

    const collection = new Collection(
      {
        message: req.message,
        justification: req.justification,
        set,
        targetWeight,
        minimumWeight,
        minimizeSigners: this.opts.minimizeSigners ?? true,
        deadlineAt: deadline.collectUntil,
        answerBy: deadline.answerBy,
        requestTimeoutMs: this.requestTimeoutMs,
        cached,
        verification: this.verification,
        fanOut: this.fanOut,
        onResponse: this.opts.events?.onResponse,
        onCachedInvalid: (pkHex) => {
          cache.delete(messageIdHex, pkHex);
          shared?.remove(messageIdHex, pkHex);
        },
      },
      this.opts.peers,
      this.opts.pool,
    );
    let verified = new Map<string, Uint8Array>();
    try {
      const outcome = await collection.run();
      verified = outcome.verified;
      const signedMessage = encodeSignedMessage(req.message, encodeSigners(outcome.signers), outcome.signature);
      return {
        signedMessage,
        signers: outcome.signers,
        signedWeight: outcome.signedWeight,
        totalWeight: set.totalWeight,
        subnetId,
        pChainHeight: height.height,
        heightSource: height.source,
        ...(destination ? { destinationBlockchainId: destination } : {}),
        signaturesProven: outcome.signaturesProven,
        signaturesLeftOut: outcome.signaturesLeftOut,
        subsetCheckMs: outcome.subsetCheckMs,
        stats: outcome.stats,
        idealMs: outcome.idealMs,
      };
    } catch (err) {
      // What was proven valid stays useful: a retry asks only the validators still missing.
      if (err instanceof QuorumShortfall) {
        verified = err.verified;
        throw new QuorumNotReachedError(err.signedWeight, minimumWeight, set.totalWeight, err.stats, err.why, this.opts.explainShortfall?.(set, req.message.bytes));
      }
      if (err instanceof CollectionLate) {
        verified = err.verified;
        throw deadline.exceeded('the collected signatures were being checked (the BLS workers were busy)');
      }
      throw err;
    } finally {
      keep(verified);
    }
  }

  private heightPhase(explicit: number, destination: Uint8Array | undefined): string {
    if (explicit > 0 || !destination) return 'the P-Chain height to sign at was being read (platform.getProposedHeight)';
    return `the current epoch of destination chain ${idToString(destination)} was being read (proposervm.getCurrentEpoch)`;
  }

  /**
   * The set at the chosen height. A height the client chose is bounded by the lookback; one the
   * service chose is not, and what would blame the client's height (above the node's tip, say,
   * when the destination's node is ahead of ours) is a ChosenHeightError instead.
   */
  private async setAt(subnetId: Uint8Array, height: SigningHeight, signal: AbortSignal): Promise<CanonicalSet> {
    const { source } = height;
    try {
      return await this.opts.sets.get(subnetId, height.height, { signal, chosenByClient: source === 'explicit' });
    } catch (err) {
      if (source === 'explicit' || signal.aborted) throw err;
      throw new ChosenHeightError(height.height, source, err);
    }
  }

  private defaultSubnet(message: UnsignedMessage, signal: AbortSignal): Promise<Uint8Array> {
    // P-Chain messages have no validatedBy answer; without a signingSubnetId they are signed by
    // the Primary Network.
    if (bytesEqual(message.sourceChainId, PRIMARY_NETWORK_ID)) return Promise.resolve(PRIMARY_NETWORK_ID);
    return this.opts.sets.signingSubnetFor(message.sourceChainId, { signal });
  }
}
