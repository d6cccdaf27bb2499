// The ACP-118 requests a connection has made and not yet settled, by request ID, and what an
// answer's ID says about it. A node under load answers its backlog late, oldest first (each
// deadline starts when the node reads the request, message/messages.go), so an answer may come
// long after warpgate gave up on it, and after its ID fell out of the remembered expired IDs.
// avalanchego's router drops any answer it is not waiting for (snow/networking/router/
// chain_router.go, "unexpected message") without closing; so does warpgate, counting it, as long
// as the ID is one it really sent. Only an ID never handed out is a fault: no honest node
// invents one.
import { bytesEqual } from '../warp/hex.js';
import { OddRequestIds } from './acp118.js';
import type { PendingRequest } from './pending-request.js';

/** Request IDs given up on and remembered, so they are not reused while their answers may still come. */
const RECENTLY_EXPIRED_CAP = 4096;

/** What an AppResponse or AppError's request ID and chain name. */
type AnswerMatch = { kind: 'pending'; request: PendingRequest } | { kind: 'late' } | { kind: 'never-asked' };

export class OutstandingRequests {
  private readonly ids = new OddRequestIds();
  private readonly pending = new Map<number, PendingRequest>();
  /** Given up on and not answered yet (kept, they filled the cap on every connection: docs/performance.md "Memory"). */
  private readonly expired = new Set<number>();

  get size(): number {
    return this.pending.size;
  }

  /** A fresh odd ID, neither pending nor recently given up on. */
  nextId(): number {
    return this.ids.take((id) => this.pending.has(id) || this.expired.has(id));
  }

  add(p: PendingRequest): void {
    this.pending.set(p.requestId, p);
  }

  values(): IterableIterator<PendingRequest> {
    return this.pending.values();
  }

  /** The caller stopped waiting: a late answer to it is not a fault. */
  forget(p: PendingRequest): void {
    if (this.pending.get(p.requestId) !== p) return;
    this.pending.delete(p.requestId);
    this.rememberExpired(p.requestId);
  }

  /** Takes out the requests whose deadline has passed (timed out here). */
  takeExpired(now: number): PendingRequest[] {
    const out: PendingRequest[] = [];
    for (const p of this.pending.values()) if (p.deadline <= now) out.push(p);
    for (const p of out) this.forget(p);
    return out;
  }

  /** Every pending request, taken out (the connection closed). */
  takeAll(): PendingRequest[] {
    const all = [...this.pending.values()];
    this.pending.clear();
    return all;
  }

  /** What an answer's ID and chain match; a pending match is taken out. */
  match(requestId: number, chainId: Uint8Array): AnswerMatch {
    const p = this.pending.get(requestId);
    if (p && bytesEqual(p.chainId, chainId)) {
      this.pending.delete(requestId);
      return { kind: 'pending', request: p };
    }
    // A pending ID on another chain was never asked on that chain: an honest node echoes the chain.
    if (p) return { kind: 'never-asked' };
    this.expired.delete(requestId);
    return this.ids.issued(requestId) ? { kind: 'late' } : { kind: 'never-asked' };
  }

  private rememberExpired(id: number): void {
    this.expired.add(id);
    if (this.expired.size > RECENTLY_EXPIRED_CAP) this.expired.delete(this.expired.values().next().value as number);
  }
}
