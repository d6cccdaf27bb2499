// Live blocks from a source's subscription, buffered until the route takes them. Bounded: when
// the route is busy (catching up, or its backlog full) and the buffer fills, the oldest blocks
// are dropped; the route notices the gap when the next block arrives (or at its idle check) and
// fetches the missing range, so dropping costs a request, never a message.
import type { SourceBlock } from './ports.js';

export class LiveQueue {
  private readonly blocks: SourceBlock[] = [];
  private dropped: Error | undefined;
  private waiter: (() => void) | undefined;

  constructor(private readonly capacity: number) {}

  push(block: SourceBlock): void {
    this.blocks.push(block);
    if (this.blocks.length > this.capacity) this.blocks.shift();
    this.wake();
  }

  /** The subscription was lost: next() throws `reason` once the buffered blocks are taken. */
  drop(reason: Error): void {
    this.dropped ??= reason;
    this.wake();
  }

  /**
   * The next block; undefined when none came for `idleMs` (the caller checks the head then).
   * Throws the drop reason when the subscription is gone, or the signal's reason when aborted.
   */
  async next(idleMs: number, signal: AbortSignal): Promise<SourceBlock | undefined> {
    if (!this.blocks.length && !this.dropped) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          this.waiter = undefined;
          resolve();
        };
        const timer = setTimeout(done, idleMs);
        signal.addEventListener('abort', done, { once: true });
        this.waiter = done;
      });
    }
    signal.throwIfAborted();
    const block = this.blocks.shift();
    if (block) return block;
    if (this.dropped) throw this.dropped;
    return undefined;
  }

  private wake(): void {
    this.waiter?.();
  }
}
