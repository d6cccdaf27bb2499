// Child processes start without the tsx loader that the CLI registered in its own thread, so
// every place that forks one passes these arguments to node. (Worker threads register tsx in
// their plain-JS entry instead: see workers/bls-entry.mjs.)
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
