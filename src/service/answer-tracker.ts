// How each signer peer answered lately, for the status page: a PeerSource that passes every call
// on to the real one (the WebSocket pool, or whatever the aggregator is given) and notes, per
// validator key, how its last request ended, how long it took and how many times it was
// penalized. Requests the aggregation cancelled because it no longer needed them are not the
// peer's doing and are not noted. At most `maxKeys` keys are remembered, the least recently
// heard from forgotten first.
import { isTimeout, REQUEST_CANCELLED, type PeerAnswer, type PeerSource, type SignatureRequest } from '../aggregator/peer-source.js';
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
    private readonly now: () => number = Date.now,
  ) {}

  /** `source`, with every answer and penalty noted here. */
  observe(source: PeerSource): PeerSource {
    return {
      isConnected: (pkHex) => source.isConnected(pkHex),
      request: (pkHex: string, req: SignatureRequest, opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<PeerAnswer> => {
        const sent = this.now();
        const answer = source.request(pkHex, req, opts);
        answer.then(
          (a) => this.answered(pkHex, sent, a.kind === 'signature' ? 'signature' : 'refused'),
          (err: unknown) => {
            if (err !== REQUEST_CANCELLED) this.answered(pkHex, sent, isTimeout(err) ? 'timeout' : 'error');
          },
        );
        return answer;
      },
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

  private answered(pkHex: string, sent: number, result: AnswerResult): void {
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
