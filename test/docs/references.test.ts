// A comment or doc that points at a section of README.md or a docs/*.md (README "Fold size",
// (README Performance), docs/p2p.md#io-shards-p2pioshards, docs/performance.md "Memory") or names
// a file of the repository in a doc finds it there: a section moved or renamed, or a file
// deleted, fails here with the place that still points at it.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, docs, exists, headings, type Doc } from './markdown.js';

/** Where references are looked for: the sources, the bench, the tests (these checkers aside), the docs. */
function referringFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) return ['src/p2p/gen', 'bench/results', 'test/docs', 'test/fixtures'].includes(path) ? [] : walk(path);
      return /\.(ts|mjs|js|md)$/.test(e.name) ? [path] : [];
    });
  return [...walk('src'), ...walk('bench'), ...walk('test'), ...walk('scripts'), ...walk('docs'), 'README.md', 'Dockerfile'];
}

const allDocs = new Map(docs().map((d) => [d.path, d]));

function hasSection(doc: Doc, name: string): boolean {
  const wanted = name.toLowerCase().replace(/`/g, '');
  return headings(doc).some((h) => h.text.toLowerCase().startsWith(wanted));
}

interface Reference {
  file: string;
  line: number;
  text: string;
  problem: string | undefined;
}

/** Every reference to a doc's section or a doc file in `text`, each with what is wrong with it. */
export function references(file: string, text: string): Reference[] {
  const out: Reference[] = [];
  const lines = text.split('\n');
  const push = (i: number, ref: string, problem: string | undefined): void => void out.push({ file, line: i + 1, text: ref, problem });
  lines.forEach((line, i) => {
    for (const m of line.matchAll(/README(?:\.md)?[,:]?\s+(?:section\s+)?["“]([^"”]+)["”]|\(README ([A-Z][^)]*)\)/g)) {
      const name = (m[1] ?? m[2])!;
      push(i, m[0], hasSection(allDocs.get('README.md')!, name) ? undefined : `README.md has no section "${name}"`);
    }
    for (const m of line.matchAll(/\bdocs\/([\w-]+\.md)(?:#([\w-]+)|[,:]?\s+["“]([^"”]+)["”])?/g)) {
      const path = `docs/${m[1]}`;
      const doc = allDocs.get(path);
      if (!doc) push(i, m[0], `${path} does not exist`);
      else if (m[2] && !headings(doc).some((h) => h.anchor === m[2])) push(i, m[0], `${path} has no heading #${m[2]}`);
      else if (m[3] && !hasSection(doc, m[3])) push(i, m[0], `${path} has no section "${m[3]}"`);
      else push(i, m[0], undefined);
    }
  });
  return out;
}

/** Repository files a doc names in code spans (`src/…`, `test/….test.ts`, `bench/….ts`, …). */
function namedFiles(doc: Doc): Reference[] {
  const out: Reference[] = [];
  doc.lines.forEach((line, i) => {
    for (const m of line.matchAll(/`((?:src|test|bench|scripts|docs|proto|bin)\/[\w./-]+\.[a-z]+)[`#]/g)) {
      out.push({ file: doc.path, line: i + 1, text: m[1]!, problem: exists(m[1]!) ? undefined : `${m[1]} does not exist` });
    }
  });
  return out;
}

describe('references to the docs', () => {
  it('each README or docs/*.md section or file that code, tests and docs point at exists', () => {
    const refs = referringFiles().flatMap((file) => references(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(refs.length).toBeGreaterThan(10);
    expect(refs.filter((r) => r.problem).map((r) => `${r.file}:${r.line}: ${r.text}: ${r.problem}`)).toEqual([]);
  });

  it('each repository file a doc names exists', () => {
    const named = [...allDocs.values()].flatMap(namedFiles);
    expect(named.filter((r) => r.problem).map((r) => `${r.file}:${r.line}: ${r.problem}`)).toEqual([]);
  });

  it('catches a section that moved and a doc that does not exist', () => {
    const found = references('x.ts', '// see README "Fold size", (README Transport floor), docs/gone.md and docs/api.md#nowhere; docs/api.md "The fewest signers" and (README Performance) are there');
    expect(found.map((r) => r.problem)).toEqual([
      'README.md has no section "Fold size"',
      'README.md has no section "Transport floor"',
      undefined,
      'docs/gone.md does not exist',
      'docs/api.md has no heading #nowhere',
      undefined,
    ]);
  });
});
