// Piscina's entry for the BLS worker threads. Node 20 does not reliably apply `--import` loader
// hooks inside worker threads, so this plain-JS file registers tsx itself, then loads the
// TypeScript tasks and re-exports them by name (piscina runs named exports).
import { register } from 'tsx/esm/api';

register();
const tasks = await import('./bls-tasks.ts');

export const { ping, foldMany, finalize, findInvalid, verifyEach, aggregate, verifyPossession } = tasks;
