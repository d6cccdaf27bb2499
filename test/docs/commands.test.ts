// Every shell command the docs show is either run by a test or listed as not run here, with the
// reason (test/docs/commands.ts); never both, never neither, and no entry outlives its doc.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOT_RUN_HERE, RUN_BY_TESTS } from './commands.js';
import { ROOT, docs, exists, shellCommands, type Doc } from './markdown.js';

const REGISTRY = 'test/docs/commands.ts';
const shown = docs().flatMap((doc: Doc) => shellCommands(doc).map((c) => ({ ...c, doc: doc.path })));

describe('the shell commands the docs show', () => {
  it('are each in exactly one list of test/docs/commands.ts', () => {
    const problems = shown.flatMap(({ doc, line, command }) => {
      const run = command in RUN_BY_TESTS;
      const notRun = command in NOT_RUN_HERE;
      if (run && notRun) return [`${doc}:${line}: in both RUN_BY_TESTS and NOT_RUN_HERE of ${REGISTRY}: keep one\n  ${JSON.stringify(command)}`];
      if (!run && !notRun) {
        return [`${doc}:${line}: a command in neither list of ${REGISTRY}. Add this key to RUN_BY_TESTS (with the test that runs it, or a short form of it) or to NOT_RUN_HERE (with why it is not run here):\n  ${JSON.stringify(command)}`];
      }
      return [];
    });
    expect(problems.join('\n')).toBe('');
  });

  it('each registered as run names a test that holds the short form it runs', () => {
    const problems = Object.entries(RUN_BY_TESTS).flatMap(([command, { test, runs }]) => {
      if (!/^test\/.+\.test\.ts$/.test(test) || !exists(test)) return [`${JSON.stringify(command)}: ${test} is not a test file here`];
      return readFileSync(join(ROOT, test), 'utf8').includes(runs) ? [] : [`${JSON.stringify(command)}: ${test} does not contain ${JSON.stringify(runs)}`];
    });
    expect(problems).toEqual([]);
  });

  it('each not run here says why', () => {
    for (const [command, why] of Object.entries(NOT_RUN_HERE)) expect(why.trim().length, command).toBeGreaterThan(10);
  });

  it('and the registry lists no command that no doc shows any more', () => {
    const inDocs = new Set(shown.map((c) => c.command));
    const stale = [...Object.keys(RUN_BY_TESTS), ...Object.keys(NOT_RUN_HERE)].filter((c) => !inDocs.has(c));
    expect(stale, `remove these from ${REGISTRY}`).toEqual([]);
  });
});

describe('shellCommands', () => {
  const doc = (text: string): Doc => ({ path: 'x.md', text, lines: text.split('\n') });

  it('joins continuations and heredocs, drops comments, and reads only shell blocks', () => {
    const text = [
      '```sh',
      'npm ci && npm start   # installs',
      '# a comment line',
      "curl -s http://x \\",
      "  -d '{}'",
      "cat > p.json <<'JSON'",
      '{ "a": 1 }',
      'JSON',
      '```',
      '```json',
      '{ "not": "a command" }',
      '```',
      '- item',
      '  ```sh',
      '  warpgate keygen --staking DIR',
      '  warpgate identity --tls-cert F   # later',
      '  ```',
    ].join('\n');
    expect(shellCommands(doc(text)).map((c) => c.command)).toEqual([
      'npm ci && npm start',
      "curl -s http://x -d '{}'",
      'cat > p.json <<\'JSON\' { "a": 1 } JSON',
      'warpgate keygen --staking DIR',
      'warpgate identity --tls-cert F',
    ]);
  });
});
