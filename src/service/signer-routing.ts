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
// isConnected and request, so nothing was sent) is the other one tried. An AppError is a refusal,
// counted as the WebSocket signers' refusals are, with its code in the reason, the logs and the
// metrics (appErrorName). A signature that fails its check penalizes whoever sent it: the
// transport that answered for that key last.
import type { Logger } from 'pino';
import type { PeerAnswer, PeerSource, SignatureRequest } from '../aggregator/peer-source.js';
import { appErrorName, type P2PAnswer, type SignatureRequestInput } from '../p2p/index.js';
import type { PeerPool } from '../peers/pool.js';
import { LogLimiter, DEFAULT_LOG_LIMIT } from '../util/log-limiter.js';
import type { RequestFailedError } from '../util/request-failure.js';
import type { P2PTransport } from './p2p.js';
import type { ValidatorDirectory } from './validator-directory.js';

type Transport = 'ws' | 'p2p';

/** How a request over a transport ended, for the per-transport metrics. */
type RequestOutcome = 'signature' | 'refused' | 'timeout' | 'cancelled' | 'failed';

export interface RoutingEvents {
  request?(transport: Transport, outcome: RequestOutcome): void;
  /** An AppError from an avalanchego validator: its code's name (appErrorName). */
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

  constructor(
    private readonly ws: PeerPool,
    private readonly p2p: P2PTransport | null,
    private readonly directory: ValidatorDirectory,
    private readonly logger: Logger,
    private readonly events: RoutingEvents = {},
  ) {
    this.logLimiter = new LogLimiter({ ...DEFAULT_LOG_LIMIT, summary: (kind, suppressed) => logger.info({ kind, suppressed }, 'suppressed repeated p2p refusal log lines') });
  }

  isConnected(pkHex: string): boolean {
    return this.ws.isConnected(pkHex) || this.p2pNodeOf(pkHex) !== undefined;
  }

  /** Connected validators per transport. */
  connectedCounts(): Record<Transport, number> {
    return { ws: this.ws.connectedKeys().length, p2p: this.p2p?.connectedCount() ?? 0 };
  }

  async request(pkHex: string, req: SignatureRequest, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<PeerAnswer> {
    const key = pkHex.toLowerCase();
    if (this.ws.isConnected(key)) {
      try {
        return await this.viaWs(key, req, opts);
      } catch (err) {
        if (!notConnected(err) || this.p2pNodeOf(key) === undefined) throw err;
      }
    }
    const nodeId = this.p2pNodeOf(key);
    if (nodeId !== undefined) return this.viaP2P(key, nodeId, req, opts);
    // Neither is connected now: the WebSocket pool gives the failure in the shared vocabulary.
    return this.viaWs(key, req, opts);
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

  private p2pNodeOf(pkHex: string): string | undefined {
    if (!this.p2p) return undefined;
    for (const nodeId of this.directory.nodeIdsOf(pkHex)) if (this.p2p.isConnected(nodeId)) return nodeId;
    return undefined;
  }

  private async viaWs(key: string, req: SignatureRequest, opts: { timeoutMs?: number; signal?: AbortSignal }): Promise<PeerAnswer> {
    let answer: PeerAnswer;
    try {
      answer = await this.ws.request(key, req, opts);
    } catch (err) {
      this.events.request?.('ws', failureOutcome(err));
      throw err;
    }
    this.events.request?.('ws', answer.kind === 'signature' ? 'signature' : 'refused');
    if (answer.kind === 'signature') this.remember(key, { transport: 'ws' });
    return answer;
  }

  /** The p2p form of a request, one object per aggregation request (the transport encodes it once). */
  private p2pRequest(req: SignatureRequest): SignatureRequestInput {
    let input = this.p2pRequests.get(req);
    if (!input) {
      const chainId = req.message.length >= SOURCE_CHAIN_OFFSET + ID_LENGTH ? req.message.subarray(SOURCE_CHAIN_OFFSET, SOURCE_CHAIN_OFFSET + ID_LENGTH) : new Uint8Array(ID_LENGTH);
      input = { chainId, message: req.message, justification: req.justification };
      this.p2pRequests.set(req, input);
    }
    return input;
  }

  private async viaP2P(key: string, nodeId: string, req: SignatureRequest, opts: { timeoutMs?: number; signal?: AbortSignal }): Promise<PeerAnswer> {
    let answer: P2PAnswer;
    try {
      answer = await this.p2p!.request(nodeId, this.p2pRequest(req), opts);
    } catch (err) {
      this.events.request?.('p2p', failureOutcome(err));
      throw err;
    }
    if (answer.kind === 'signature') {
      this.events.request?.('p2p', 'signature');
      this.remember(key, { transport: 'p2p', nodeId });
      return answer;
    }
    const name = appErrorName(answer.code);
    this.events.request?.('p2p', 'refused');
    this.events.appError?.(name);
    this.logLimiter.log(`p2p refusal ${name}`, () => this.logger.info({ nodeId, code: answer.code, appError: name, reason: answer.reason }, 'avalanchego validator refused to sign'));
    return { kind: 'refused', reason: `${nodeId} refused with AppError ${answer.code} (${name}): ${answer.reason}` };
  }

  private remember(key: string, by: Answerer): void {
    const known = this.answeredBy.get(key);
    // The usual case, the same answerer as last time: nothing to move (this runs per answer).
    if (known && known.transport === by.transport && (known.transport === 'ws' || known.nodeId === (by as { nodeId: string }).nodeId)) return;
    this.answeredBy.delete(key);
    this.answeredBy.set(key, by);
    if (this.answeredBy.size > MAX_REMEMBERED_ANSWERERS) this.answeredBy.delete(this.answeredBy.keys().next().value!);
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
