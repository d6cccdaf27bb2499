// Runs in a worker thread (see loader.test.ts): the native binding must load per thread, as
// the aggregator's piscina workers need it to.
import { parentPort } from 'node:worker_threads';
import { loadBackend } from '../../src/bls/index.js';

let fallback: string | undefined;
const backend = loadBackend(undefined, { onFallback: (reason) => (fallback = reason) });
const sk = backend.secretKeyFromBytes(
  Buffer.from('233428aaadf8a5d11ebba263d97b85a286750540f4abd04f109321e07b746277', 'hex'),
);
const sig = backend.sign(sk, new TextEncoder().encode('test'));
parentPort?.postMessage({
  name: backend.name,
  fallback,
  signature: Buffer.from(sig.bytes).toString('hex'),
  verifies: backend.verify(backend.publicKeyOf(sk), new TextEncoder().encode('test'), sig),
});
