// A file of JSON lines that only grows, each write durable (fdatasync) before its promise
// resolves: the embedded store's disk format. Writes that arrive while one is being synced are
// grouped into the next sync (group commit), so a burst costs one fsync, not one per message.
// A line is only ever torn at the end (a crash mid-append); opening drops such a tail. Any other
// unreadable line means the file was damaged from outside, and opening refuses it.
import { createReadStream } from 'node:fs';
import { open, rename, truncate, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

/** A line about to be written; `written` learns where it landed once it is durable. */
export interface PendingLine {
  readonly text: string;
  written?(offset: number, length: number): void;
}

interface Batch {
  readonly lines: PendingLine[];
  readonly done: Array<{ resolve(): void; reject(err: unknown): void }>;
}

const NEWLINE = 0x0a;

/**
 * Reads every complete line of `path` with its byte offset and length (the newline excluded) and
 * hands its parsed JSON to `onLine`. Returns the offset just past the last good line: a torn last
 * line (no newline, or not JSON) is left out and the caller truncates the file there.
 */
export async function scanLog(
  path: string,
  onLine: (value: unknown, offset: number, length: number, raw: Buffer) => void | Promise<void>,
): Promise<number> {
  let goodEnd = 0;
  let position = 0;
  let carry: Buffer[] = [];
  let carryStart = 0;
  let bad: { offset: number; err: unknown } | undefined;
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let start = 0;
    for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, i);
      const line = carry.length ? Buffer.concat([...carry, piece]) : piece;
      const offset = carry.length ? carryStart : position + start;
      carry = [];
      if (bad) throw new Error(`relayer store ${path}: line at byte ${bad.offset} is damaged (${String(bad.err)}); restore a backup or move the file away`);
      let value: unknown;
      try {
        value = JSON.parse(line.toString('utf8'));
      } catch (err) {
        bad = { offset, err };
      }
      if (!bad) {
        await onLine(value, offset, line.length, line);
        goodEnd = offset + line.length + 1;
      }
      start = i + 1;
    }
    if (start < chunk.length) {
      if (!carry.length) carryStart = position + start;
      carry.push(chunk.subarray(start));
    }
    position += chunk.length;
  }
  return goodEnd;
}

export class AppendLog {
  private queue: Batch = { lines: [], done: [] };
  private flushing: Promise<void> | undefined;
  private failure: unknown;
  private closed = false;
  private readers = 0;
  private retired: FileHandle[] = [];

  private constructor(
    readonly path: string,
    private handle: FileHandle,
    /** Bytes in the file, all of them durable. */
    public size: number,
  ) {}

  /** Opens (creating) the log, truncated to `validEnd` (what scanLog accepted). */
  static async open(path: string, validEnd: number): Promise<AppendLog> {
    const handle = await open(path, 'a+');
    const { size } = await handle.stat();
    if (size !== validEnd) {
      await truncate(path, validEnd);
      await handle.datasync();
    }
    await syncDirectory(dirname(path));
    return new AppendLog(path, handle, validEnd);
  }

  /** Appends the lines; resolves once they are on disk. */
  append(lines: PendingLine[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('relayer store is closed'));
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      this.queue.lines.push(...lines);
      this.queue.done.push({ resolve, reject });
      this.flushing ??= this.flushLoop();
    });
  }

  /** One line's text, as written at `offset`. */
  async read(offset: number, length: number): Promise<string> {
    const handle = this.handle;
    this.readers++;
    try {
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, offset);
      return buffer.toString('utf8');
    } finally {
      this.readers--;
      void this.closeRetired();
    }
  }

  /**
   * Rewrites the log with only the lines `keep` selects (by their offset) after `header`, then
   * swaps it in atomically (write, fsync, rename, fsync the folder). Appends wait meanwhile;
   * `moved` gets each kept line's new offset.
   */
  async compact(header: string[], keep: (offset: number) => boolean, moved: (oldOffset: number, newOffset: number) => void): Promise<void> {
    await this.exclusive(async () => {
      const tmp = `${this.path}.compact`;
      const out = await open(tmp, 'w');
      const moves: Array<[number, number]> = [];
      let size = 0;
      let buffered: Buffer[] = [];
      let bufferedBytes = 0;
      const write = async (text: string | Buffer, oldOffset?: number): Promise<void> => {
        const bytes = typeof text === 'string' ? Buffer.from(`${text}\n`, 'utf8') : Buffer.concat([text, Buffer.from('\n')]);
        if (oldOffset !== undefined) moves.push([oldOffset, size]);
        buffered.push(bytes);
        bufferedBytes += bytes.length;
        size += bytes.length;
        if (bufferedBytes > 1 << 20) {
          await out.write(Buffer.concat(buffered));
          buffered = [];
          bufferedBytes = 0;
        }
      };
      try {
        for (const text of header) await write(text);
        await scanLog(this.path, async (_value, offset, _length, raw) => {
          if (keep(offset)) await write(raw, offset);
        });
        if (buffered.length) await out.write(Buffer.concat(buffered));
        await out.datasync();
      } finally {
        await out.close();
      }
      await rename(tmp, this.path);
      await syncDirectory(dirname(this.path));
      this.retired.push(this.handle);
      this.handle = await open(this.path, 'a+');
      this.size = size;
      for (const [from, to] of moves) moved(from, to);
      void this.closeRetired();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flushing;
    this.retired.push(this.handle);
    await this.closeRetired();
  }

  private async closeRetired(): Promise<void> {
    if (this.readers > 0) return;
    const handles = this.retired;
    this.retired = [];
    await Promise.all(handles.map((h) => h.close().catch(() => undefined)));
  }

  /** Runs `work` with no flush in progress and none starting until it ends. */
  private async exclusive(work: () => Promise<void>): Promise<void> {
    while (this.flushing) await this.flushing;
    let release!: () => void;
    this.flushing = new Promise<void>((r) => (release = r));
    try {
      await work();
    } finally {
      this.flushing = undefined;
      release();
      if (this.queue.done.length) this.flushing = this.flushLoop();
    }
  }

  private async flushLoop(): Promise<void> {
    await Promise.resolve(); // let append() store this promise before the loop can end
    while (this.queue.done.length) {
      const batch = this.queue;
      this.queue = { lines: [], done: [] };
      try {
        if (this.failure) throw this.failure;
        const texts = batch.lines.map((l) => Buffer.from(`${l.text}\n`, 'utf8'));
        const bytes = Buffer.concat(texts);
        let written = 0;
        while (written < bytes.length) {
          const { bytesWritten } = await this.handle.write(bytes, written, bytes.length - written);
          written += bytesWritten;
        }
        await this.handle.datasync();
        let offset = this.size;
        batch.lines.forEach((line, i) => {
          line.written?.(offset, texts[i]!.length - 1);
          offset += texts[i]!.length;
        });
        this.size = offset;
        for (const d of batch.done) d.resolve();
      } catch (err) {
        // A failed write leaves the file's tail unknown: refuse everything after it rather than
        // acknowledge writes that may not be there. Reopening the store replays what is.
        this.failure ??= new Error(`relayer store ${this.path}: write failed: ${String(err)}`);
        for (const d of batch.done) d.reject(this.failure);
      }
    }
    this.flushing = undefined;
  }
}

/** fsync of a folder, so a created or renamed file's name is durable too. */
async function syncDirectory(path: string): Promise<void> {
  const dir = await open(path, 'r');
  try {
    await dir.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the data itself was synced.
  } finally {
    await dir.close();
  }
}
