#!/usr/bin/env node
// The `warpgate` command runs the compiled JavaScript in dist/ (`npm run build`; `npm start`
// builds it when it is missing or out of date), so it needs neither tsx nor esbuild. From a
// checkout, `npm run dev -- <command>` runs the TypeScript sources instead.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('warpgate: dist/ is not built: run `npm run build` (or `npm start`, which builds it), or `npm run dev -- <command>` to run the sources\n');
  process.exit(1);
}
await import(cli.href);
