// The performance tables of the docs (docs/performance.md, and README.md's headline figures),
// generated from the bench JSON each one cites, so that a figure in the docs is always one a run
// wrote. Each table sits between two marker comments:
//   <!-- bench-table ID -->  ...generated...  <!-- /bench-table -->
// and names, under it, every JSON it was read from with the commit the run measured, the machine
// it ran on and the command that reproduces it. A summary JSON (bench/results/repeats-200/…)
// carries them itself (`command`, `machine`, each run's `code`), as does bench/relayer.ts's
// (`commit`); a raw bench JSON carries its machine, and bench/results/index.json gives its
// commit and command.
//   node --import tsx bench/doc-tables.ts           rewrite every marked table in README.md and docs/*.md
//   node --import tsx bench/doc-tables.ts --check   exit 1 if one is not what its JSON gives
// test/docs/performance-tables.test.ts runs the check.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TABLES } from './doc-table-specs.js';

export const ROOT = new URL('../', import.meta.url).pathname;
export const RESULTS = 'bench/results';
const INDEX = `${RESULTS}/index.json`;

/** Where a result came from: what the docs print under each table. */
export interface Provenance {
  commit: string;
  machine: string;
  command: string;
}

interface IndexEntry {
  commit?: string;
  machine?: string;
  command?: string;
}

/** One table: the JSON files it reads (paths from the repository root) and its rows. */
export interface TableSpec {
  id: string;
  sources: string[];
  /** The Markdown table (header, separator, rows), from the parsed sources in `sources` order. */
  render(json: unknown[]): string[];
}

export function readJson(path: string, root = ROOT): unknown {
  return JSON.parse(readFileSync(join(root, path), 'utf8')) as unknown;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The machine a bench JSON names: a summary's string, or the harness's / a micro-bench's object. */
function machineOf(json: Record<string, unknown>): string | undefined {
  const m = json.machine;
  if (typeof m === 'string') return m;
  const o = record(m);
  const cpu = o.cpuModel ?? o.cpu;
  const cores = o.cpus ?? o.cores;
  if (typeof cpu !== 'string' || typeof cores !== 'number') return undefined;
  const node = typeof o.node === 'string' ? `, Node ${o.node.replace(/^v/, '')}` : '';
  return `${cpu} VM, ${cores} cores${node}`;
}

/** The commits a summary JSON's runs name (`runs[].code`), in order, each once. */
function commitsOf(json: Record<string, unknown>): string | undefined {
  const runs = Array.isArray(json.runs) ? json.runs : [];
  const codes = [...new Set(runs.map((r) => record(r).code).filter((c): c is string => typeof c === 'string'))];
  return codes.length ? codes.join(', ') : undefined;
}

/** The provenance of one result file; throws naming what is missing, so a new source cannot go uncredited. */
export function provenance(path: string, root = ROOT): Provenance {
  const json = record(readJson(path, root));
  const index = record(readJson(INDEX, root));
  const entry = record(index[relative(RESULTS, path)]) as IndexEntry;
  const commit = commitsOf(json) ?? (typeof json.commit === 'string' ? json.commit : undefined) ?? entry.commit;
  const machine = entry.machine ?? machineOf(json);
  const command = typeof json.command === 'string' ? json.command : entry.command;
  const missing = [!commit && 'commit', !machine && 'machine', !command && 'command'].filter(Boolean);
  if (missing.length) throw new Error(`${path}: no ${missing.join(', ')} in the JSON; add them to ${INDEX} under "${relative(RESULTS, path)}"`);
  return { commit: commit!, machine: machine!, command: command! };
}

/** A table's whole generated block, as it stands between the markers of a doc at `docPath`. */
export function renderTable(spec: TableSpec, docPath: string, root = ROOT): string {
  const table = spec.render(spec.sources.map((s) => readJson(s, root)));
  const from = spec.sources.map((s) => {
    const p = provenance(s, root);
    const link = relative(dirname(docPath), s);
    return `- [\`${relative(RESULTS, s)}\`](${link}): commit ${p.commit}; ${p.machine}; \`${p.command}\``;
  });
  return [...table, '', 'From:', '', ...from].join('\n');
}

const MARKER = /<!-- bench-table ([\w-]+) -->\n([\s\S]*?)<!-- \/bench-table -->/g;

export interface MarkedTable {
  id: string;
  body: string;
}

/** The marked tables of a doc, in order. */
export function markedTables(text: string): MarkedTable[] {
  return [...text.matchAll(MARKER)].map((m) => ({ id: m[1]!, body: m[2]! }));
}

function specFor(id: string, docPath: string): TableSpec {
  const spec = TABLES.find((t) => t.id === id);
  if (!spec) throw new Error(`${docPath}: no table '${id}' in bench/doc-table-specs.ts (known: ${TABLES.map((t) => t.id).join(', ')})`);
  return spec;
}

/** The doc with every marked table regenerated. */
export function regenerate(text: string, docPath: string, root = ROOT): string {
  return text.replace(MARKER, (_all, id: string) => `<!-- bench-table ${id} -->\n${renderTable(specFor(id, docPath), docPath, root)}\n<!-- /bench-table -->`);
}

/** README.md and every docs/*.md, as paths from the root. */
export function docFiles(root = ROOT): string[] {
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  return ['README.md', ...docs.sort()];
}

function main(argv: string[]): number {
  const check = argv.includes('--check');
  const stale: string[] = [];
  for (const doc of docFiles()) {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    if (markedTables(text).length === 0) continue;
    const next = regenerate(text, doc);
    if (next === text) continue;
    if (check) stale.push(doc);
    else writeFileSync(join(ROOT, doc), next);
  }
  if (stale.length) {
    process.stderr.write(`tables out of date with their JSON: ${stale.join(', ')} (run node --import tsx bench/doc-tables.ts)\n`);
    return 1;
  }
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
