// A source file over 400 lines holds more than one concept (issue 13): split it. The generated
// protobuf codec (src/p2p/gen) is not ours to split.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const MAX_LINES = 400;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return relative(ROOT, path) === 'src/p2p/gen' ? [] : sourceFiles(path);
    return /\.(ts|mjs)$/.test(e.name) ? [path] : [];
  });
}

describe('source files', () => {
  it(`are at most ${MAX_LINES} lines each`, () => {
    const long = sourceFiles(join(ROOT, 'src'))
      .map((path) => ({ path: relative(ROOT, path), lines: readFileSync(path, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${f.path}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });
});
