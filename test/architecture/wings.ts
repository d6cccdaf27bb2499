// The wings table of docs/architecture.md, read as data: the map the architecture tests hold the
// code to. The table sits between `<!-- wings:begin -->` and `<!-- wings:end -->`; its first
// column names a folder under src/, its third the wings that folder may import ("every wing" for
// the command line, "—" for none).
import { readFileSync } from 'node:fs';

export interface Wing {
  name: string;
  /** Wings this one may import; undefined: any. */
  mayImport: ReadonlySet<string> | undefined;
}

const DOC = new URL('../../docs/architecture.md', import.meta.url);

export function readWings(text = readFileSync(DOC, 'utf8')): Map<string, Wing> {
  const start = text.indexOf('<!-- wings:begin -->');
  const end = text.indexOf('<!-- wings:end -->');
  if (start < 0 || end < start) throw new Error('docs/architecture.md has no wings table between its markers');
  const rows = text
    .slice(start, end)
    .split('\n')
    .filter((line) => /^\|\s*`[\w-]+`\s*\|/.test(line));
  const wings = new Map<string, Wing>();
  for (const row of rows) {
    const cells = row.split('|').map((c) => c.trim());
    const name = cells[1]!.replace(/`/g, '');
    const imports = cells[3]!;
    const mayImport = imports === 'every wing' ? undefined : new Set(imports === '—' ? [] : imports.split(',').map((w) => w.trim()));
    if (wings.has(name)) throw new Error(`wing ${name} is listed twice`);
    wings.set(name, { name, mayImport });
  }
  return wings;
}
