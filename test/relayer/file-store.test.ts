import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Hex } from '../../src/relayer/ports.js';
import { openFileStore, type FileStoreOptions } from '../../src/relayer/store/file-store.js';
import { packagePath, tsExecArgv } from '../../src/util/ts-runtime.js';
import { recordOf } from './fakes.js';
import { storeContract } from './store-contract.js';

const dirs: string[] = [];
function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'warpgate-store-'));
  dirs.push(dir);
  return join(dir, 'nested', 'relayer.log');
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

storeContract('file store', () => openFileStore({ path: tempPath() }));

describe('file store on disk', () => {
  it('reopens with every record, version and checkpoint', async () => {
    const path = tempPath();
    const options: FileStoreOptions = { path };
    const store = await openFileStore(options);
    const a = recordOf({ nonce: 1n });
    const b = recordOf({ nonce: 2n, status: 'delivered' });
    await store.insert(a.message.warpMessageId, a);
    await store.insert(b.message.warpMessageId, b);
    const { version: _v, ...rest } = a;
    await store.update(a.message.warpMessageId, 1, { ...rest, status: 'submitted' });
    await store.advanceCheckpoint('a->b', 42);
    await store.close();

    const again = await openFileStore({ path });
    expect(await again.get(a.message.warpMessageId)).toMatchObject({ status: 'submitted', version: 2 });
    // A finished record is not held in memory; it is read back from the file.
    expect(await again.get(b.message.warpMessageId)).toEqual({ ...b, version: 1 });
    expect(await again.getByTeleporterId!(b.message.teleporterMessageId)).toEqual({ ...b, version: 1 });
    expect(await again.checkpoint('a->b')).toBe(42);
    await again.close();
  });

  it('refuses a second opener while the first holds the file, and takes over from a dead one', async () => {
    const path = tempPath();
    const store = await openFileStore({ path });
    await expect(openFileStore({ path })).rejects.toThrow(/in use by process/);
    await store.close();
    await (await openFileStore({ path })).close();
  });

  it('drops a torn last line (a crash mid-append) and keeps appending cleanly', async () => {
    const path = tempPath();
    const store = await openFileStore({ path });
    const a = recordOf({ nonce: 1n });
    await store.insert(a.message.warpMessageId, a);
    await store.close();
    appendFileSync(path, '{"t":"put","id":"0xdead","r":{"rou');

    const again = await openFileStore({ path });
    expect(await again.get(a.message.warpMessageId)).toBeDefined();
    const b = recordOf({ nonce: 2n });
    await again.insert(b.message.warpMessageId, b);
    await again.close();
    const third = await openFileStore({ path });
    expect(await third.get(b.message.warpMessageId)).toBeDefined();
    await third.close();
  });

  it('refuses a file damaged in the middle rather than silently losing records', async () => {
    const path = tempPath();
    const store = await openFileStore({ path });
    for (const nonce of [1n, 2n]) {
      const r = recordOf({ nonce });
      await store.insert(r.message.warpMessageId, r);
    }
    await store.close();
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[0] = lines[0]!.slice(0, 20);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, lines.join('\n'));
    await expect(openFileStore({ path })).rejects.toThrow(/damaged/);
  });

  it('compacts a log of superseded lines and keeps everything current', async () => {
    const path = tempPath();
    const store = await openFileStore({ path, compactAfterBytes: 32 * 1024 });
    const ids: Hex[] = [];
    for (let i = 1n; i <= 20n; i++) {
      const r = recordOf({ nonce: i });
      ids.push(r.message.warpMessageId);
      await store.insert(r.message.warpMessageId, r);
      const { version: _v, ...rest } = r;
      for (let v = 1; v <= 10; v++) await store.update(r.message.warpMessageId, v, { ...rest, attempts: v, status: v === 10 ? 'delivered' : 'seen' });
    }
    await store.advanceCheckpoint('a->b', 7);
    await store.prune(Number.MAX_SAFE_INTEGER); // every record is finished and older: all go
    await store.close();
    const after = await openFileStore({ path, compactAfterBytes: 32 * 1024 });
    expect(await after.checkpoint('a->b')).toBe(7);
    for (const id of ids) expect(await after.get(id)).toBeUndefined();
    await after.close();

    // Compaction without prune: every record at its newest version, the file much smaller.
    const path2 = tempPath();
    const s2 = await openFileStore({ path: path2, compactAfterBytes: 32 * 1024 });
    for (let i = 1n; i <= 20n; i++) {
      const r = recordOf({ nonce: i });
      await s2.insert(r.message.warpMessageId, r);
      const { version: _v, ...rest } = r;
      for (let v = 1; v <= 10; v++) await s2.update(r.message.warpMessageId, v, { ...rest, attempts: v, status: v === 10 ? 'delivered' : 'seen' });
    }
    await s2.close();
    const written = 20 * 11;
    const reopened = await openFileStore({ path: path2 });
    const all = await reopened.list({ limit: 100 });
    expect(all).toHaveLength(20);
    expect(all.every((r) => r.version === 11 && r.status === 'delivered' && r.attempts === 10)).toBe(true);
    const lineCount = readFileSync(path2, 'utf8').trim().split('\n').length;
    expect(lineCount).toBeLessThan(written);
    expect(statSync(path2).size).toBe(reopened.logBytes());
    await reopened.close();
  });

  it('loses no acknowledged write when its writer is killed with SIGKILL mid-stream (and its lock is taken over)', async () => {
    const path = tempPath();
    const child = spawn(process.execPath, [...tsExecArgv(), packagePath('test/relayer/store-writer.ts'), path, '600'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acked = new Map<Hex, number>();
    let checkpoint = 0;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let buffered = '';
    const killed = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        buffered += d.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const [kind, a, b] = line.split(' ');
          if (kind === 'ack') acked.set(a as Hex, Math.max(Number(b), acked.get(a as Hex) ?? 0));
          if (kind === 'cp') checkpoint = Math.max(checkpoint, Number(a));
        }
      });
      child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited ${code}: ${stderr}`))));
    });
    await killed;
    expect(acked.size).toBeGreaterThan(100);
    const store = await openFileStore({ path });
    const missing: string[] = [];
    for (const [id, version] of acked) {
      const record = await store.get(id);
      if (!record || record.version < version) missing.push(`${id}@${version}: ${record ? `v${record.version}` : 'absent'}`);
    }
    expect(missing).toEqual([]);
    expect(await store.checkpoint('a->b')).toBeGreaterThanOrEqual(checkpoint);
    await store.close();
  }, 120_000);
});
