// Reproducible randomness for the benchmark: every draw is a function of the seed and a label,
// so one seed gives the same weights, the same offline and byzantine validators and the same
// delay for every (validator, message), whichever strategy or process asks.
import { sha256 } from '@noble/hashes/sha2.js';
import type { LatencyModel } from './args.js';

const encoder = new TextEncoder();

/** A uniform draw in (0, 1) determined by the seed and the label. */
export function uniform(seed: string, ...label: (string | number)[]): number {
  const digest = sha256(encoder.encode(['warpgate-bench', seed, ...label.map(String)].join('\0')));
  // 48 bits of the digest, shifted off zero so that log() below is always finite.
  const bits = Buffer.from(digest.buffer, digest.byteOffset, 6).readUIntBE(0, 6);
  return (bits + 0.5) / 2 ** 48;
}

/** A standard normal draw (Box-Muller over two labelled uniforms). */
export function normal(seed: string, ...label: (string | number)[]): number {
  const u1 = uniform(seed, ...label, 'u1');
  const u2 = uniform(seed, ...label, 'u2');
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** A lognormal delay: median · e^(σ·N(0,1)), in whole-and-fractional milliseconds. */
export function lognormalDelay(model: LatencyModel, seed: string, ...label: (string | number)[]): number {
  return model.medianMs * Math.exp(model.sigma * normal(seed, ...label));
}

/** `count` distinct indices below `n`, chosen by a seeded shuffle (Fisher-Yates). */
export function choose(n: number, count: number, seed: string, label: string): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(uniform(seed, label, i) * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order.slice(0, count).sort((a, b) => a - b);
}
