// The architecture test: every import under src/ stays inside the wings table of
// docs/architecture.md (read by ./wings.ts), and no module imports itself back through others.
// dependency-cruiser reads the import graph (TypeScript's `.js` specifiers resolved to their
// `.ts` files) and applies rules generated from the table.
import { existsSync, mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cruise, type IForbiddenRuleType, type IReporterOutput } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';
import { readWings, type Wing } from './wings.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const wings = readWings();

/** The wing a path under src/ belongs to: its first folder, or the file's name for a file wing (src/cli.ts, src/index.ts). */
function wingOf(path: string): string | undefined {
  const m = /^src\/([^/]+)\//.exec(path) ?? /^src\/([^/]+)\.ts$/.exec(path);
  return m?.[1];
}

function rulesFor(table: Map<string, Wing>): IForbiddenRuleType[] {
  const rules: IForbiddenRuleType[] = [
    { name: 'no-circular', severity: 'error', from: { path: '^src/' }, to: { circular: true } },
  ];
  for (const wing of table.values()) {
    if (wing.mayImport === undefined) continue;
    const allowed = [wing.name, ...wing.mayImport].join('|');
    rules.push({
      name: `wing-${wing.name}`,
      comment: `${wing.name} may import only ${[...wing.mayImport].join(', ') || 'itself'}`,
      severity: 'error',
      // A wing is a folder (src/warp/) or a file (src/cli.ts).
      from: { path: `^src/${wing.name}(\\.ts$|/)` },
      to: { path: '^src/', pathNot: `^src/(${allowed})/` },
    });
  }
  return rules;
}

async function violations(baseDir: string, table: Map<string, Wing>): Promise<string[]> {
  const result = await cruise(
    ['src'],
    {
      baseDir,
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      exclude: { path: '^src/p2p/gen/' },
      ruleSet: { forbidden: rulesFor(table) },
      validate: true,
    },
    { extensions: ['.ts', '.js', '.mjs'], extensionAlias: { '.js': ['.ts', '.js'] } },
  );
  const output = (result as IReporterOutput).output;
  if (typeof output === 'string') throw new Error('dependency-cruiser returned text, not a result');
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`);
}

describe('the architecture (docs/architecture.md)', () => {
  it('maps every folder and file directly under src/ to a wing', () => {
    const entries = readdirSync(join(ROOT, 'src'), { withFileTypes: true });
    const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name);
    const files = entries.filter((e) => e.isFile()).map((e) => e.name);
    expect(folders.filter((f) => !wings.has(f))).toEqual([]);
    expect(files.filter((f) => !wings.has(f.replace(/\.ts$/, '')))).toEqual([]);
    expect([...wings.keys()].filter((w) => !folders.includes(w) && !existsSync(join(ROOT, 'src', `${w}.ts`)))).toEqual([]);
  });

  it('forbids the imports the layout issue named, whatever else the table allows', () => {
    const forbidden: [string, string[]][] = [
      ['warp', ['server', 'peers', 'node']],
      ['bls', ['aggregator']],
      ['validators', ['server', 'node']],
      ['aggregator', ['server', 'devnet']],
      ['server', ['devnet']],
      ['peers', ['aggregator']],
      ['proxy', ['aggregator']],
      ['l1', ['server']],
      ['node', ['server', 'aggregator']],
      // The p2p I/O shards run p2p/ code in worker threads: they move bytes and must never see
      // weights, sums or quorum decisions (docs/architecture.md "Threads").
      ['p2p', ['validators', 'aggregator', 'bls-pool', 'service']],
    ];
    for (const [from, targets] of forbidden) {
      const allowed = wings.get(from)?.mayImport;
      expect(allowed, `${from} must have a bounded import list`).toBeDefined();
      for (const to of targets) expect(allowed!.has(to), `${from} → ${to}`).toBe(false);
    }
  });

  it('has no import outside the table and no import cycle', async () => {
    expect(await violations(ROOT, wings)).toEqual([]);
  });

  it('would fail on a forbidden import and on a cycle', async () => {
    // A tree of three files that breaks the rules twice: warp imports server, and two server
    // modules import each other.
    const dir = mkdtempSync(join(tmpdir(), 'warpgate-arch-'));
    try {
      mkdirSync(join(dir, 'src/warp'), { recursive: true });
      mkdirSync(join(dir, 'src/server'), { recursive: true });
      writeFileSync(join(dir, 'src/warp/codec.ts'), "import { route } from '../server/app.js';\nexport const codec = route;\n");
      writeFileSync(join(dir, 'src/server/app.ts'), "import { errors } from './errors.js';\nexport const route = errors;\n");
      writeFileSync(join(dir, 'src/server/errors.ts'), "import { route } from './app.js';\nexport const errors = 1;\nexport const again = route;\n");
      const found = await violations(dir, wings);
      expect(found).toContain('wing-warp: src/warp/codec.ts → src/server/app.ts');
      expect(found.filter((v) => v.startsWith('no-circular:'))).not.toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

export { wingOf };
