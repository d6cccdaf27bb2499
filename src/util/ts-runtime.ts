// Child processes start without the tsx loader that the CLI registered in its own thread, so
// every place that forks one passes these arguments to node. Worker threads start from a plain-JS
// entry that registers tsx itself (ts-worker.mjs, made with tsWorker()).
import { fileURLToPath } from 'node:url';

const tsxLoader = import.meta.resolve('tsx');

/** node arguments that let a new thread or process load our .ts files. */
export function tsExecArgv(): string[] {
  const inherited = process.execArgv.filter((a) => !a.startsWith('--inspect'));
  return inherited.includes(tsxLoader) ? inherited : [...inherited, '--import', tsxLoader];
}

/** Absolute path of a file of this package, given relative to the package root. */
export function packagePath(relative: string): string {
  return fileURLToPath(new URL(`../../${relative}`, import.meta.url));
}

/**
 * The entry file and workerData of a worker thread (a piscina pool's) that runs the TypeScript
 * module at `module`: the thread starts in ts-worker.mjs, which loads it and hands on its
 * default export. `data` travels with it as the rest of workerData.
 */
export function tsWorker<D extends object>(module: URL, data: D): { filename: string; workerData: D & { tsModule: string } } {
  return { filename: new URL('./ts-worker.mjs', import.meta.url).href, workerData: { ...data, tsModule: module.href } };
}
