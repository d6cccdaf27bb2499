// How each signer peer answered lately, for the status page: a PeerSource that passes every call
// on to the real one (the WebSocket pool, or whatever the aggregator is given) and notes, per
// validator key, how its last request ended, how long it took and how many times it was
// penalized. Requests the aggregation cancelled because it no longer needed them are not the
// peer's doing and are not noted. At most `maxKeys` keys are remembered, the least recently
// heard from forgotten first.
import { isTimeout, type AskDone, type AskTicket, type CancelWhy, type PeerAnswer, type PeerSource } from '../aggregator/peer-source.js';
import type { AnswerResult } from '../server/status/report.js';

interface PeerRecord {
  result?: AnswerResult;
  ms?: number;
  /** Epoch ms of the last answer. */
  at?: number;
  penalties: number;
}

export class AnswerTracker {
  private readonly records = new Map<string, PeerRecord>();

  constructor(
    private readonly maxKeys: number,
    readonly now: () => number = Date.now,
  ) {}

  /** `source`, with every answer and penalty noted here (a request given up on at its deadline is a timeout). */
  observe(source: PeerSource): PeerSource {
    return {
      isConnected: (pkHex) => source.isConnected(pkHex),
      connecting: (pkHex) => source.connecting?.(pkHex) ?? false,
      ask: (pkHex, req, timeoutMs, done) => new TrackedAsk(this, pkHex, done, (d) => source.ask(pkHex, req, timeoutMs, d)),
      penalize: (pkHex, reason) => {
        this.touch(pkHex).penalties++;
        source.penalize(pkHex, reason);
      },
    };
  }

  /** What is known of a key: its last answer and its penalties. */
  get(pkHex: string): { last: { result: AnswerResult; ms: number; secondsAgo: number } | null; penalties: number } {
    const r = this.records.get(pkHex.toLowerCase());
    if (!r) return { last: null, penalties: 0 };
    const last = r.result === undefined ? null : { result: r.result, ms: r.ms!, secondsAgo: Math.max(0, Math.round((this.now() - r.at!) / 1000)) };
    return { last, penalties: r.penalties };
  }

  /** @internal TrackedAsk's: how the request sent at `sent` ended. */
  answered(pkHex: string, sent: number, result: AnswerResult): void {
    const r = this.touch(pkHex);
    r.at = this.now();
    r.ms = r.at - sent;
    r.result = result;
  }

  /** The key's record, made the most recent (created when new, the oldest dropped past maxKeys). */
  private touch(pkHex: string): PeerRecord {
    const key = pkHex.toLowerCase();
    const r = this.records.get(key) ?? { penalties: 0 };
    this.records.delete(key);
    this.records.set(key, r);
    if (this.records.size > this.maxKeys) this.records.delete(this.records.keys().next().value!);
    return r;
  }
}

/** One request seen by the tracker: its ticket, and the callback its source calls. */
class TrackedAsk implements AskTicket {
  private readonly sent: number;
  private finished = false;
  private readonly inner: AskTicket;

  constructor(
    private readonly tracker: AnswerTracker,
    private readonly pkHex: string,
    private readonly done: AskDone,
    send: (done: AskDone) => AskTicket,
  ) {
    this.sent = tracker.now();
    this.inner = send((err, answer) => this.onDone(err, answer));
  }

  cancel(why: CancelWhy): void {
    if (this.finished) return;
    this.finished = true;
    // Requests the aggregation no longer needs are not the peer's doing; a deadline passed is.
    if (why === 'timeout') this.tracker.answered(this.pkHex, this.sent, 'timeout');
    this.inner.cancel(why);
  }

  private onDone(err: Error | undefined, answer: PeerAnswer | undefined): void {
    if (this.finished) return;
    this.finished = true;
    this.tracker.answered(this.pkHex, this.sent, err ? (isTimeout(err) ? 'timeout' : 'error') : answer!.kind === 'signature' ? 'signature' : 'refused');
    this.done(err, answer);
  }
}
