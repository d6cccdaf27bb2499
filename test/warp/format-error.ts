import { expect } from 'vitest';
import { WarpFormatError } from '../../src/warp/errors.js';

/** Runs `fn`, which must throw a WarpFormatError, and returns that error for its fields to be checked. */
export function formatError(fn: () => unknown): WarpFormatError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WarpFormatError);
    return err as WarpFormatError;
  }
  throw new Error('expected a WarpFormatError');
}
