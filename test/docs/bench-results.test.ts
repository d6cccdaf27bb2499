// bench/results/ keeps exactly the runs the docs cite: a doc citing a result that is not there,
// or a result no doc cites (a scratch file, a superseded run), fails here.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, docFiles } from '../../bench/doc-tables.js';

const RESULTS = join(ROOT, 'bench/results');
const CITATION = /bench\/results\/[\w./-]+\.(?:json|svg|md|png|txt|csv)/g;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [relative(ROOT, join(dir, e.name))]));
}

/** Each cited result file, with the docs that cite it. */
function citations(): Map<string, string[]> {
  const cited = new Map<string, string[]>();
  for (const doc of docFiles()) {
    for (const [path] of readFileSync(join(ROOT, doc), 'utf8').matchAll(CITATION)) cited.set(path, [...(cited.get(path) ?? []), doc]);
  }
  return cited;
}

describe('bench/results/', () => {
  const cited = citations();
  const present = new Set(files(RESULTS));

  it('holds every result file a doc cites', () => {
    const missing = [...cited].filter(([path]) => !present.has(path)).map(([path, docs]) => `${[...new Set(docs)].join(', ')} cites ${path}, which does not exist`);
    expect(missing).toEqual([]);
  });

  it('holds nothing that no doc cites', () => {
    const uncited = [...present].filter((path) => !cited.has(path)).sort();
    expect(uncited, 'cite each of these in README.md or docs/*.md, or git rm it (its history stays in git)').toEqual([]);
  });
});
