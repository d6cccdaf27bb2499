// Linux's /proc, read where it exists: the bench's per-thread CPU and the machine's CPU pressure
// come from it, and elsewhere (or on a kernel without the file) the figure is left out.
import { readFileSync } from 'node:fs';

/** The text of a /proc file, or undefined where it cannot be read. */
export function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
