// The README's configuration table, rendered from SCHEMA. A test checks that README.md holds
// exactly this text, so a key added to the schema without documentation fails the build.
// Regenerate with: node --import tsx -e "import('./src/config/docs.ts').then(m => console.log(m.renderConfigTable()))"
import { SCHEMA, envName, type KeyType } from './schema.js';

function describeType(t: KeyType): string {
  switch (t.kind) {
    case 'int':
      return `integer ${t.min}–${t.max}`;
    case 'optionalInt':
      return `integer ${t.min}–${t.max} or null`;
    case 'bool':
      return 'boolean';
    case 'string':
      return t.enum ? t.enum.map((e) => `\`${e}\``).join(' \\| ') : 'string';
    case 'url':
      return `URL (${t.protocols.map((p) => p.replace(/:$/, '')).join(', ')})`;
    case 'optionalUrl':
      return `URL (${t.protocols.map((p) => p.replace(/:$/, '')).join(', ')}) or null`;
    case 'optionalSecret':
      return 'secret string or null';
    case 'stringList':
      return 'list of strings';
    case 'idList':
      return 'list of cb58 IDs';
    case 'blsKeyList':
      return 'list of BLS public keys (hex)';
    case 'peerList':
      return 'list of `{"url": "ws://…"}`';
  }
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** One Markdown table row per key: key, environment variable, type, default, meaning. */
export function renderConfigTable(): string {
  const rows = Object.entries(SCHEMA).map(([key, spec]) => {
    const def = `\`${cell(JSON.stringify(spec.default))}\``;
    return `| \`${key}\` | \`${envName(key)}\` | ${describeType(spec.type)} | ${def} | ${cell(spec.doc)} |`;
  });
  return ['| key | environment | type | default | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}
