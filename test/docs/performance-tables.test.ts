// The performance tables of the docs are what their bench JSON gives (bench/doc-tables.ts): a
// figure edited by hand, a JSON rerun without regenerating the doc, or a source whose commit,
// machine or command is unknown fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TABLES } from '../../bench/doc-table-specs.js';
import { ROOT, docFiles, markedTables, provenance, regenerate, renderTable } from '../../bench/doc-tables.js';

const docs = docFiles().map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
const FIX = 'regenerate with: node --import tsx bench/doc-tables.ts';

describe('the docs\' performance tables', () => {
  it('each marked table is exactly what bench/doc-tables.ts renders from its JSON', () => {
    const stale: string[] = [];
    for (const doc of docs) {
      for (const table of markedTables(doc.text)) {
        const spec = TABLES.find((t) => t.id === table.id);
        if (!spec) stale.push(`${doc.path}: unknown table '${table.id}'`);
        else if (table.body !== `${renderTable(spec, doc.path)}\n`) stale.push(`${doc.path}: table '${table.id}' differs from its JSON`);
      }
    }
    expect(stale, FIX).toEqual([]);
  });

  it('every table is placed in a doc, and each of its sources names its commit, machine and command', () => {
    const placed = new Set(docs.flatMap((d) => markedTables(d.text).map((t) => t.id)));
    for (const spec of TABLES) {
      expect(placed.has(spec.id), `table '${spec.id}' is in no doc`).toBe(true);
      for (const source of spec.sources) {
        const p = provenance(source);
        expect(p.commit, source).toMatch(/^[0-9a-f]{7,40}(, [0-9a-f]{7,40})*$/);
        expect(p.machine, source).toMatch(/cores/);
        expect(p.command, source).toMatch(/^(npm run bench|node --import tsx bench\/)/);
      }
    }
  });

  it('a figure changed by hand is caught', () => {
    const doc = docs.find((d) => d.path === 'docs/performance.md')!;
    const [first] = markedTables(doc.text);
    expect(first).toBeDefined();
    const edited = doc.text.replace(first!.body, first!.body.replace(/\d\.\d/, (d) => `${(Number(d[0]) + 1) % 10}.${d[2]}`));
    expect(edited).not.toBe(doc.text);
    expect(regenerate(edited, doc.path)).toBe(doc.text);
  });

  it('a marker naming no table fails, naming the known ones', () => {
    expect(() => regenerate('<!-- bench-table no-such-table -->\n<!-- /bench-table -->', 'docs/x.md')).toThrow(/no table 'no-such-table'.*known: latency-1000/);
  });
});
