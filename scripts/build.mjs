#!/usr/bin/env node
// `npm run build`: compiles src/ to dist/ (tsc -p tsconfig.build.json: JavaScript, source maps,
// declarations) into a fresh folder that replaces dist/ only once the compiler succeeded, and
// records in dist/.source-hash the hash of what it compiled.
// `--if-stale` (npm start's prestart) builds only when dist/ is missing or that hash differs from
// the sources now: a content hash, not file times, so a checkout, a branch switch or an edit
// undone is judged by what the files say. Where there are no sources (the installed package,
// which ships dist/ alone) there is nothing to do.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const staging = join(root, 'dist.tmp');
const stampFile = join(dist, '.source-hash');
/** Besides src/, what changes the compiled output. */
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json'];

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name))
    .sort();
}

function sourceHash() {
  const hash = createHash('sha256');
  for (const file of [...filesUnder(join(root, 'src')), ...CONFIG_FILES.map((f) => join(root, f))]) {
    hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

function tscPath() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    process.stderr.write('warpgate build: TypeScript is not installed; run `npm ci` (with the development dependencies) first\n');
    process.exit(1);
  }
}

const ifStale = process.argv.includes('--if-stale');
if (!existsSync(join(root, 'src'))) {
  if (ifStale && existsSync(join(dist, 'cli.js'))) process.exit(0);
  process.stderr.write('warpgate build: there is no src/ to compile here\n');
  process.exit(1);
}
const hash = sourceHash();
if (ifStale && existsSync(join(dist, 'cli.js')) && existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === hash) process.exit(0);

rmSync(staging, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [tscPath(), '-p', join(root, 'tsconfig.build.json'), '--outDir', staging], { cwd: root, stdio: 'inherit' });
if (tsc.status !== 0) {
  rmSync(staging, { recursive: true, force: true });
  process.stderr.write('warpgate build: the TypeScript compiler failed; dist/ is left as it was\n');
  process.exit(tsc.status ?? 1);
}
writeFileSync(join(staging, '.source-hash'), `${hash}\n`);
rmSync(dist, { recursive: true, force: true });
renameSync(staging, dist);
if (ifStale) process.stderr.write('warpgate build: compiled src/ to dist/\n');
