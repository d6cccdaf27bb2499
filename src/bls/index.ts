// Entry point of src/bls: pick a backend once and reuse it. blst is the default; noble serves
// when asked for, when the native binding cannot load, and always for proof-of-possession
// checks (nobleBackend()).
import { BlstUnavailableError, createBlstBackend } from './blst-backend.js';
import { createNobleBackend } from './noble-backend.js';
import type { BackendName, BlsBackend } from './types.js';

export * from './types.js';
export * from './constants.js';
export { BlstUnavailableError } from './blst-backend.js';

interface LoadBackendOptions {
  /**
   * Told once per process, the first time blst turns out to be unusable and noble is used in
   * its place (e.g. to log a warning). This module never writes to the console itself.
   */
  onFallback?: (reason: string) => void;
}

interface BackendRegistry {
  loadBackend(name?: BackendName, options?: LoadBackendOptions): BlsBackend;
  nobleBackend(): BlsBackend;
  /** Why blst could not be used, once a load has been attempted and failed; else undefined. */
  blstUnavailableReason(): string | undefined;
}

/**
 * A memoizing registry. `createBlst` builds the native backend (tests inject a failing one to
 * exercise the fallback); it may throw, and anything it throws selects noble.
 */
export function createBackendRegistry(
  createBlst: (noble: BlsBackend) => BlsBackend = (noble) => createBlstBackend(noble),
): BackendRegistry {
  let noble: BlsBackend | undefined;
  let blst: BlsBackend | undefined;
  let failure: string | undefined;

  const nobleBackend = (): BlsBackend => (noble ??= createNobleBackend());

  const loadBlst = (options?: LoadBackendOptions): BlsBackend => {
    if (blst) return blst;
    if (failure === undefined) {
      try {
        blst = createBlst(nobleBackend());
        return blst;
      } catch (error) {
        failure =
          error instanceof BlstUnavailableError
            ? error.reason
            : error instanceof Error
              ? error.message
              : String(error);
        options?.onFallback?.(failure);
      }
    }
    return nobleBackend();
  };

  return {
    loadBackend(name = 'blst', options) {
      if (name === 'noble') return nobleBackend();
      if (name === 'blst') return loadBlst(options);
      throw new TypeError(`unknown BLS backend "${String(name)}" (expected "blst" or "noble")`);
    },
    nobleBackend,
    blstUnavailableReason: () => failure,
  };
}

const registry = createBackendRegistry();

/**
 * The backend named (blst by default), built once per process. When blst cannot load, noble
 * is returned instead (check `.name`) and `options.onFallback` hears why, once.
 */
export function loadBackend(name?: BackendName, options?: LoadBackendOptions): BlsBackend {
  return registry.loadBackend(name, options);
}

/** The noble backend: the one that can check proofs of possession under the _POP_ DST. */
export function nobleBackend(): BlsBackend {
  return registry.nobleBackend();
}

export function blstUnavailableReason(): string | undefined {
  return registry.blstUnavailableReason();
}
