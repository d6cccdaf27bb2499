// One process per store file: two relayers appending to the same log would interleave their
// lines and each trust its own memory. The lock is a file beside the log holding the owner's
// pid, created exclusively; a lock whose process is gone (a kill -9) is taken over.
import { open, readFile, rm } from 'node:fs/promises';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/** Takes the lock at `path`; resolves to its release. Throws when a live process holds it. */
export async function lockFile(path: string): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.sync();
      await handle.close();
      return () => rm(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (Number.isSafeInteger(owner) && owner > 0 && alive(owner)) {
        throw new Error(`relayer store is in use by process ${owner} (lock ${path}); one relayer per store file`);
      }
      await rm(path, { force: true }); // its owner died without releasing it
    }
  }
  throw new Error(`relayer store lock ${path} could not be taken`);
}
