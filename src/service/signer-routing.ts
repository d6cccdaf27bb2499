// The aggregator's one PeerSource over both transports: the WebSocket signer peers (by BLS key)
// and the avalanchego peer network (by NodeID; the validator directory maps a key to the NodeIDs
// registered with it). A validator reachable both ways is asked once per request, over one
// transport:
//
//   1. its WebSocket signer, when connected: the signer proved possession of the BLS key itself,
//      so no validator-set lookup stands between the key and the peer, and it is the channel the
//      validator's operator set up for warpgate, with the signing policy they chose;
//   2. else one of its NodeIDs connected over p2p (the first in the set's order).
//
// Only when the chosen transport turns out to have no connection after all (it dropped between
// isConnected and request, so nothing was sent) is the other one tried, either way round. An AppError is a refusal,
// counted as the WebSocket signers' refusals are, with its code in the reason, the logs and the
// metrics (appErrorLabel). A signature that fails its check penalizes whoever sent it: the
// transport that answered for that key last.
import type { Logger } from 'pino';
import type { AskDone, AskTicket, CancelWhy, PeerAnswer, PeerSource, SignatureRequest } from '../aggregator/peer-source.js';
import type { P2PAnswer, SignatureRequestInput } from '../p2p/index.js';
import { appErrorLabel, mayBeNotYet, NOT_YET_MIN_ATTEMPT_MS, notYetBackoff, vmOfChain } from './app-error-kinds.js';
import type { PeerPool } from '../peers/pool.js';
import { LogLimiter, DEFAULT_LOG_LIMIT } from '../util/log-limiter.js';
import type { RequestFailedError } from '../util/request-failure.js';
import type { P2PTransport } from './p2p.js';
import type { ValidatorDirectory } from './validator-directory.js';
import { cutPeerText } from '../util/peer-text.js';
import { silenceHint, SilentValidators } from './silent-validators.js';
import type { CanonicalSet } from '../validators/canonical-set.js';

type Transport = 'ws' | 'p2p';

/** How a request over a transport ended, for the per-transport metrics. */
type RequestOutcome = 'signature' | 'refused' | 'timeout' | 'cancelled' | 'failed';

export interface RoutingEvents {
  request?(transport: Transport, outcome: RequestOutcome): void;
  /** An AppError from an avalanchego validator: its code's label per VM (appErrorLabel). */
  appError?(code: string): void;
}

type Answerer = { transport: 'ws' } | { transport: 'p2p'; nodeId: string };

/** Keys whose last answerer is remembered (for penalties), the oldest forgotten first. */
const MAX_REMEMBERED_ANSWERERS = 100_000;
/** unsigned message: codec version u16, network ID u32, then the 32-byte source chain ID. */
const SOURCE_CHAIN_OFFSET = 6;
const ID_LENGTH = 32;

export class SignerRouting implements PeerSource {
  private readonly answeredBy = new Map<string, Answerer>();
  private readonly p2pRequests = new WeakMap<SignatureRequest, SignatureRequestInput>();
  private readonly logLimiter: LogLimiter;
  /** avalanchego validators that drop requests without an answer (silent-validators.ts). */
  readonly silent = new SilentValidators();

  constructor(
    readonly ws: PeerPool,
    readonly p2p: P2PTransport | null,
    private readonly directory: ValidatorDirectory,
    private readonly logger: Logger,
    private readonly events: RoutingEvents = {},
  ) {
    this.logLimiter = new LogLimiter({ ...DEFAULT_LOG_LIMIT, summary: (kind, suppressed) => logger.info({ kind, suppressed }, 'suppressed repeated p2p refusal log lines') });
  }

  isConnected(pkHex: string): boolean {
    return this.ws.isConnected(pkHex) || this.p2pNodeOf(pkHex) !== undefined;
  }

  /**
   * Being connected (PeerSource.connecting): a first dial to a configured signer is under way, or
   * one of its NodeIDs is being looked up or dialled over p2p.
   */
  connecting(pkHex: string): boolean {
    const key = pkHex.toLowerCase();
    if (this.ws.connecting(key)) return true;
    const p2p = this.p2p;
    return p2p !== null && this.directory.nodeIdsOf(key).some((id) => p2p.connecting(id));
  }

  /** Connected validators per transport. */
  connectedCounts(): Record<Transport, number> {
    return { ws: this.ws.connectedKeys().length, p2p: this.p2p?.connectedCount() ?? 0 };
  }

  ask(pkHex: string, req: SignatureRequest, timeoutMs: number, done: AskDone): AskTicket {
    const key = pkHex.toLowerCase();
    const routed = new RoutedAsk(this, key, req, timeoutMs, done);
    if (this.ws.isConnected(key)) {
      routed.viaWs();
      return routed;
    }
    const nodeId = this.p2pNodeOf(key);
    // Neither is connected now: the WebSocket pool gives the failure in the shared vocabulary.
    if (nodeId !== undefined) routed.viaP2P(nodeId);
    else routed.viaWs();
    return routed;
  }

  penalize(pkHex: string, reason: string): void {
    const key = pkHex.toLowerCase();
    const by = this.answeredBy.get(key);
    if (by?.transport === 'p2p') this.p2p?.penalize(by.nodeId, reason);
    else this.ws.penalize(key, reason);
  }

  close(): void {
    this.logLimiter.close();
  }

  /** The NodeID over which p2p reaches this key now, if any. */
  p2pNodeOf(pkHex: string): string | undefined {
    if (!this.p2p) return undefined;
    for (const nodeId of this.directory.nodeIdsOf(pkHex)) if (this.p2p.isConnected(nodeId)) return nodeId;
    return undefined;
  }

  /** The p2p form of a request, one object per aggregation request (the transport encodes it once). */
  p2pRequest(req: SignatureRequest): SignatureRequestInput {
    let input = this.p2pRequests.get(req);
    if (!input) {
      const chainId = req.message.length >= SOURCE_CHAIN_OFFSET + ID_LENGTH ? req.message.subarray(SOURCE_CHAIN_OFFSET, SOURCE_CHAIN_OFFSET + ID_LENGTH) : new Uint8Array(ID_LENGTH);
      input = { chainId, message: req.message, justification: req.justification };
      this.p2pRequests.set(req, input);
    }
    return input;
  }

  /** A p2p request to `nodeId` on `chainId` was answered (a signature or an AppError), or timed out. */
  p2pHeard(nodeId: string, chainId: Uint8Array, answered: boolean): void {
    if (answered) return this.silent.answered(nodeId, chainId);
    const named = this.silent.unanswered(nodeId, chainId);
    if (named) this.logger.warn(named, 'avalanchego validator drops requests without an answer');
  }

  /** Why validators of `set` may have left a message from its source chain unanswered, for a 503; undefined when no pattern is named. */
  explainShortfall(set: CanonicalSet, message: Uint8Array): string | undefined {
    const { chainId } = this.p2pRequest({ message, justification: new Uint8Array() });
    const silences = set.validators.flatMap((v) => v.nodeIds.flatMap((id) => this.silent.of(id, chainId) ?? []));
    return silenceHint(silences);
  }

  /** A request over a transport ended (or was given up on): the per-transport metrics. */
  counted(transport: Transport, outcome: RequestOutcome): void {
    this.events.request?.(transport, outcome);
  }

  /** A p2p refusal on `chainId`, in the aggregator's words; counted, and logged within the log limit. */
  p2pRefusal(nodeId: string, chainId: Uint8Array, answer: P2PAnswer & { kind: 'refused' }): PeerAnswer & { kind: 'refused' } {
    const vm = vmOfChain(chainId);
    // A fixed set of labels (appErrorLabel): the metric's series and the limiter's keys stay bounded
    // whatever codes a validator sends; its message is cut (the transport cuts it too).
    const name = appErrorLabel(vm, answer.code);
    const text = cutPeerText(answer.reason);
    const notYet = mayBeNotYet(vm, answer.code);
    this.events.appError?.(name);
    this.logLimiter.log(`p2p refusal ${name}`, () =>
      this.logger.info({ nodeId, code: answer.code, appError: name, reason: text, ...(notYet ? { notYet } : {}) }, 'avalanchego validator refused to sign'),
    );
    const reason = `${nodeId} refused with AppError ${answer.code} (${name}): ${text}`;
    return notYet ? { kind: 'refused', reason: `${reason} (not yet executed or unknown)`, notYet } : { kind: 'refused', reason };
  }

  remember(key: string, by: Answerer): void {
    const known = this.answeredBy.get(key);
    // The usual case, the same answerer as last time: nothing to move (this runs per answer).
    if (known && known.transport === by.transport && (known.transport === 'ws' || known.nodeId === (by as { nodeId: string }).nodeId)) return;
    this.answeredBy.delete(key);
    this.answeredBy.set(key, by);
    if (this.answeredBy.size > MAX_REMEMBERED_ANSWERERS) this.answeredBy.delete(this.answeredBy.keys().next().value!);
  }
}

const WS_ANSWERER: Answerer = { transport: 'ws' };

/**
 * One request through the routing: over the WebSocket signer, or p2p, or the other when the
 * first turned out not to be connected; its own ticket, and the one callback it gives the
 * transport (no Promise per layer).
 */
class RoutedAsk implements AskTicket {
  private inner: AskTicket | undefined;
  private transport: Transport = 'ws';
  private nodeId = '';
  private finished = false;
  private triedP2P = false;
  private triedWs = false;
  private readonly startedAt = Date.now();
  /** Not-yet refusals asked again so far, the last of them, and the timer of the next try or of the deadline. */
  private retries = 0;
  private notYet: PeerAnswer | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly routing: SignerRouting,
    private readonly key: string,
    private readonly req: SignatureRequest,
    private readonly timeoutMs: number,
    private readonly done: AskDone,
  ) {}

  viaWs(): void {
    this.transport = 'ws';
    this.triedWs = true;
    this.inner = this.routing.ws.ask(this.key, this.req, this.timeoutMs, (err, answer) => this.onWs(err, answer));
  }

  viaP2P(nodeId: string): void {
    this.transport = 'p2p';
    this.nodeId = nodeId;
    this.triedP2P = true;
    this.inner = this.routing.p2p!.ask(nodeId, this.routing.p2pRequest(this.req), this.timeoutMs, (err, answer) => this.onP2P(err, answer));
  }

  cancel(why: CancelWhy): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.timer);
    if (why === 'timeout' && this.transport === 'p2p') this.routing.p2pHeard(this.nodeId, this.chainId(), false);
    this.routing.counted(this.transport, why === 'timeout' ? 'timeout' : 'cancelled');
    this.inner?.cancel(why);
  }

  private onWs(err: Error | undefined, answer: PeerAnswer | undefined): void {
    if (this.finished) return;
    if (err) {
      // Nothing was sent: the other transport, when it reaches the key.
      if (notConnected(err) && !this.triedP2P) {
        const nodeId = this.routing.p2pNodeOf(this.key);
        if (nodeId !== undefined) {
          this.routing.counted('ws', 'failed');
          this.viaP2P(nodeId);
          return;
        }
      }
      return this.finish(err, undefined);
    }
    if (answer!.kind === 'signature') this.routing.remember(this.key, WS_ANSWERER);
    this.finish(undefined, answer);
  }

  private onP2P(err: Error | undefined, answer: P2PAnswer | undefined): void {
    if (this.finished) return;
    // A retry after a not-yet refusal that failed: that refusal is still the best account.
    if (err && this.notYet) return this.finish(undefined, this.notYet);
    // Only answers and timeouts tell whether the node drops this chain's requests; a disconnect does not.
    if (!err) this.routing.p2pHeard(this.nodeId, this.chainId(), true);
    else if (failureOutcome(err) === 'timeout') this.routing.p2pHeard(this.nodeId, this.chainId(), false);
    if (err) {
      // Nothing was sent (with p2p.ioShards, isConnected can be a message behind the shard): the
      // signer, when it has connected since.
      if (notConnected(err) && !this.triedWs && this.routing.ws.isConnected(this.key)) {
        this.routing.counted('p2p', 'failed');
        this.viaWs();
        return;
      }
      return this.finish(err, undefined);
    }
    if (answer!.kind === 'signature') {
      this.routing.remember(this.key, { transport: 'p2p', nodeId: this.nodeId });
      return this.finish(undefined, answer);
    }
    const refusal = this.routing.p2pRefusal(this.nodeId, this.routing.p2pRequest(this.req).chainId, answer as P2PAnswer & { kind: 'refused' });
    if (refusal.notYet && this.askAgainLater(refusal)) return;
    this.finish(undefined, refusal);
  }

  /**
   * A not-yet refusal (an EVM block not yet accepted or executed): the same validator is asked
   * again after a backoff, while at least NOT_YET_MIN_ATTEMPT_MS would be left before the
   * request's deadline; just before that deadline the refusal stands. False when no time is left.
   */
  private askAgainLater(refusal: PeerAnswer): boolean {
    const end = this.startedAt + this.timeoutMs;
    const wait = notYetBackoff(this.retries);
    if (Date.now() + wait + NOT_YET_MIN_ATTEMPT_MS > end) return false;
    this.notYet = refusal;
    this.retries++;
    this.inner = undefined;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const nodeId = this.routing.p2pNodeOf(this.key);
      if (this.finished) return;
      if (nodeId === undefined) return this.finish(undefined, refusal);
      // The caller cancels at its deadline; the refusal is reported just before it, not a timeout.
      this.timer = setTimeout(() => this.standByNotYet(), Math.max(0, end - NOT_YET_MIN_ATTEMPT_MS / 2 - Date.now()));
      this.timer.unref();
      this.transport = 'p2p';
      this.nodeId = nodeId;
      this.inner = this.routing.p2p!.ask(nodeId, this.routing.p2pRequest(this.req), Math.max(1, end - Date.now()), (e, a) => this.onP2P(e, a));
    }, wait);
    this.timer.unref();
    return true;
  }

  /** The deadline is near and the retry has no answer: the not-yet refusal is the answer. */
  private standByNotYet(): void {
    if (this.finished) return;
    const inner = this.inner;
    this.finish(undefined, this.notYet);
    inner?.cancel('cancelled');
  }

  private chainId(): Uint8Array {
    return this.routing.p2pRequest(this.req).chainId;
  }

  private finish(err: Error | undefined, answer: PeerAnswer | undefined): void {
    this.finished = true;
    clearTimeout(this.timer);
    this.routing.counted(this.transport, err ? failureOutcome(err) : answer!.kind === 'signature' ? 'signature' : 'refused');
    this.done(err, answer);
  }
}

/** The request was never sent: no connection when it was made. */
function notConnected(err: unknown): boolean {
  return (err as RequestFailedError | undefined)?.reason === 'not-connected';
}

function failureOutcome(err: unknown): RequestOutcome {
  const reason = (err as RequestFailedError | undefined)?.reason;
  return reason === 'timeout' ? 'timeout' : reason === 'aborted' ? 'cancelled' : 'failed';
}
