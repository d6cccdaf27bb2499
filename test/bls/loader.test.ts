// loadBackend: blst by default, noble on request or when the native binding cannot load (with
// one warning through onFallback), one instance per name.
import { Worker } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import {
  BlstUnavailableError,
  createBackendRegistry,
  loadBackend,
  nobleBackend,
} from '../../src/bls/index.js';
import { createBlstBackend, loadBlstModule } from '../../src/bls/blst-backend.js';
import type { BlsBackend } from '../../src/bls/types.js';
import { vectors } from './helpers.js';

describe('loadBackend', () => {
  it('gives blst by default on this machine, the same instance every time', () => {
    const onFallback = vi.fn();
    const a = loadBackend(undefined, { onFallback });
    expect(a.name).toBe('blst');
    expect(loadBackend('blst')).toBe(a);
    expect(onFallback).not.toHaveBeenCalled();
  });

  it('gives noble when asked, the same instance nobleBackend() returns', () => {
    expect(loadBackend('noble').name).toBe('noble');
    expect(loadBackend('noble')).toBe(nobleBackend());
  });

  it('rejects an unknown backend name', () => {
    expect(() => loadBackend('openssl' as 'blst')).toThrow(/unknown BLS backend "openssl"/);
  });

  it('falls back to noble when blst cannot load, and says why exactly once', () => {
    const registry = createBackendRegistry(() => {
      throw new BlstUnavailableError('no prebuilt binary for this platform');
    });
    const onFallback = vi.fn();
    const first = registry.loadBackend(undefined, { onFallback });
    expect(first.name).toBe('noble');
    expect(onFallback).toHaveBeenCalledTimes(1);
    expect(onFallback).toHaveBeenCalledWith('no prebuilt binary for this platform');
    expect(registry.loadBackend('blst', { onFallback })).toBe(first);
    expect(registry.loadBackend(undefined, { onFallback })).toBe(registry.nobleBackend());
    expect(onFallback).toHaveBeenCalledTimes(1);
    expect(registry.blstUnavailableReason()).toBe('no prebuilt binary for this platform');
  });

  it('builds blst once per registry', () => {
    const create = vi.fn((noble: BlsBackend) => createBlstBackend(noble));
    const registry = createBackendRegistry(create);
    registry.loadBackend();
    registry.loadBackend('blst');
    expect(create).toHaveBeenCalledTimes(1);
    expect(registry.blstUnavailableReason()).toBeUndefined();
  });
});

describe('loadBlstModule', () => {
  it('turns a missing native module into a BlstUnavailableError', () => {
    const missing = () => {
      throw new Error("Cannot find module '@chainsafe/blst-linux-x64-gnu'");
    };
    expect(() => loadBlstModule(missing)).toThrow(BlstUnavailableError);
    expect(() => loadBlstModule(missing)).toThrow(/Cannot find module/);
  });

  it('refuses a binding that loads but fails the known-answer self-test', () => {
    const wrongKey = {
      SecretKey: {
        fromBytes: () => ({ toPublicKey: () => ({ toBytes: () => new Uint8Array(48) }) }),
      },
    };
    expect(() => loadBlstModule(() => wrongKey)).toThrow(/self-test failed/);
  });
});

describe('in a worker thread', () => {
  it('loads blst there too and signs the vector', async () => {
    // On Node 20 `--import tsx` in a Worker's execArgv does not install tsx's hooks in the
    // thread, so a small bootstrap registers tsx inside the worker before loading the probe.
    const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
    const probe = JSON.stringify(new URL('./worker-probe.ts', import.meta.url).href);
    const bootstrap = `import(${api}).then(({ register }) => { register(); return import(${probe}); })`;
    const worker = new Worker(bootstrap, { eval: true });
    try {
      const reply = await new Promise<unknown>((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error('worker did not answer within 20 s')), 20_000);
        worker.once('message', (message) => {
          clearTimeout(deadline);
          resolve(message);
        });
        worker.once('error', (error) => {
          clearTimeout(deadline);
          reject(error);
        });
      });
      expect(reply).toEqual({
        name: 'blst',
        fallback: undefined,
        signature: vectors.bls.signature,
        verifies: true,
      });
    } finally {
      await worker.terminate();
    }
  });
});
