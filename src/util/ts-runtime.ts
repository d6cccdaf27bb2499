// Worker threads and child processes run the same kind of code as the process that starts them:
// the compiled JavaScript when warpgate runs from dist/ (the installed package, the Docker image,
// `npm start`), its TypeScript sources when it runs from src/ (the tests, `npm run dev`, the
// bench). Sources need tsx, which neither inherits: child processes get it in their node
// arguments (tsExecArgv), worker threads start from a plain-JS entry that registers it
// (ts-worker.mjs, through tsWorker()). Compiled code needs neither, and tsx is a development
// dependency only: it is never resolved there.
import { fileURLToPath } from 'node:url';

/** True when this module runs as compiled JavaScript (dist/), false when it runs as TypeScript (src/). */
const COMPILED = import.meta.url.endsWith('.js');

/** A module's URL as the running code has it: `…/x.ts` names `…/x.js` once compiled. */
function runnable(module: URL): URL {
  return COMPILED ? new URL(module.href.replace(/\.ts$/, '.js')) : module;
}

/**
 * node arguments that let a new process load this package's modules the way this one does, from
 * any working directory: an inherited `--import tsx` resolves from the working directory, so tsx
 * is named by its URL.
 */
export function tsExecArgv(): string[] {
  const inherited = process.execArgv.filter((a) => !a.startsWith('--inspect'));
  if (COMPILED) return inherited;
  const tsxLoader = import.meta.resolve('tsx');
  const args = inherited.map((a, i) => (inherited[i - 1] === '--import' && a === 'tsx' ? tsxLoader : a));
  const hasTsx = args.some((a, i) => args[i - 1] === '--import' && a === tsxLoader);
  return hasTsx ? args : [...args, '--import', tsxLoader];
}

/**
 * Absolute path of a file of this package, given relative to the package root. A module of the
 * sources (`src/….ts`) is named as the running code has it: `dist/….js` once compiled.
 */
export function packagePath(relative: string): string {
  const compiledModule = COMPILED ? /^src\/(.+)\.ts$/.exec(relative) : null;
  const path = compiledModule ? `dist/${compiledModule[1]}.js` : relative;
  return fileURLToPath(new URL(`../../${path}`, import.meta.url));
}

/**
 * The entry file and workerData of a worker thread (a piscina pool's) that runs the module at
 * `module` (given as its `.ts` source, next to the caller). Compiled, the thread starts in that
 * module's `.js` itself. From the sources it starts in ts-worker.mjs, which registers tsx, loads
 * the module and hands on its default export. `data` travels with it as the rest of workerData.
 */
export function tsWorker<D extends object>(module: URL, data: D): { filename: string; workerData: D & { tsModule?: string } } {
  if (COMPILED) return { filename: runnable(module).href, workerData: data };
  return { filename: new URL('./ts-worker.mjs', import.meta.url).href, workerData: { ...data, tsModule: module.href } };
}
