// The embedded relayer store's write rate: N messages each written four times (seen, signed,
// submitted, delivered), C at once, every write fsync'd; group commit shares the syncs.
// node --import tsx bench/relayer-store.ts
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFileStore } from '../src/relayer/store/file-store.js';
import { recordOf } from '../test/relayer/fakes.js';
const store = await openFileStore({ path: join(mkdtempSync(join(tmpdir(), 'b-')), 'r.log') });
const N = 2000, C = 16;
const records = Array.from({ length: N }, (_, i) => recordOf({ nonce: BigInt(i + 1) }));
const t0 = performance.now();
let next = 0;
await Promise.all(Array.from({ length: C }, async () => {
  while (next < N) {
    const r = records[next++]!;
    const id = r.message.warpMessageId;
    await store.insert(id, r);
    const { version: _v, ...rest } = r;
    await store.update(id, 1, { ...rest, status: 'signed' });
    await store.update(id, 2, { ...rest, status: 'submitted' });
    await store.update(id, 3, { ...rest, status: 'delivered' });
  }
}));
const ms = performance.now() - t0;
console.log(`${N} messages x 4 durable writes, ${C} at once: ${(N / (ms / 1000)).toFixed(0)} messages/s, ${((4 * N) / (ms / 1000)).toFixed(0)} writes/s, log ${(store.logBytes() / 1e6).toFixed(1)} MB`);
console.log(`rss ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);
await store.close();
