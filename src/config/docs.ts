// The configuration table of docs/configuration.md, rendered from the config schema. A test
// checks that docs/configuration.md holds exactly this text, so a key added to the schema
// without documentation fails the build.
// Regenerate with: node --import tsx -e "import('./src/config/docs.ts').then(m => console.log(m.renderConfigTable()))"
import { SCHEMA, envName } from './schema.js';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** One Markdown table row per key: key, environment variable, type, default, meaning. */
export function renderConfigTable(): string {
  const rows = Object.entries(SCHEMA).map(([key, spec]) => {
    const def = `\`${cell(JSON.stringify(spec.default))}\``;
    return `| \`${key}\` | \`${envName(key)}\` | ${spec.type} | ${def} | ${cell(spec.doc)} |`;
  });
  return ['| key | environment | type | default | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}
