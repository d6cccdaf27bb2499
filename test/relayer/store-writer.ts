// A child process for the kill -9 test: writes records into a file store as fast as it can,
// several at once, and prints `ack <warpMessageId> <version>` once each write's promise resolved.
// After `killAfter` acknowledgements it SIGKILLs itself in that same moment, with other writes
// still in flight (a kill from the parent would land later, after the pipe's delay, and could
// not catch a store that acknowledged too early); the test checks every acknowledged write.
import { writeSync } from 'node:fs';
import { openFileStore } from '../../src/relayer/store/file-store.js';
import { recordOf } from './fakes.js';

const path = process.argv[2]!;
const killAfter = Number(process.argv[3] ?? 400);
let acks = 0;
const ack = (line: string): void => {
  writeSync(1, `${line}\n`);
  if (++acks >= killAfter) process.kill(process.pid, 'SIGKILL');
};
const store = await openFileStore({ path, compactAfterBytes: 64 * 1024 });
let nonce = 1n;
const writer = async (): Promise<void> => {
  for (;;) {
    const record = recordOf({ nonce: nonce++ });
    const id = record.message.warpMessageId;
    await store.insert(id, record);
    ack(`ack ${id} 1`);
    const { version: _v, ...rest } = record;
    await store.update(id, 1, { ...rest, status: 'delivered', updatedAt: Date.now() });
    ack(`ack ${id} 2`);
    await store.advanceCheckpoint('a->b', Number(nonce));
    ack(`cp ${nonce}`);
  }
};
await Promise.all([writer(), writer(), writer(), writer()]);
