#!/usr/bin/env node
// warpgate runs its TypeScript sources directly through tsx: one way for the CLI, the worker
// threads and the child processes it starts (see src/util/ts-runtime.ts).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
