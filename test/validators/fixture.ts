// The canonicalSet vector of test/fixtures/warp-vectors.json as validator entries. The fixture
// names its validators A, B, C; we give each a NodeID derived from its letter.
import { readFileSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import { nodeIdToString } from '../../src/warp/cb58.js';
import { hexToBytes } from '../../src/warp/hex.js';
import type { BlsBackend } from '../../src/bls/types.js';
import type { ValidatorEntry } from '../../src/validators/canonical-set.js';

interface CanonicalSetVector {
  validators: { node: string; secretKey: string; publicKey: string; weight: string }[];
  keylessWeight: string;
  totalWeight: string;
  canonical: { publicKey: string; publicKeyUncompressed: string; weight: string; nodes: string[] }[];
  unsignedMessage: string;
  individualSignatures: string[];
  cases: { signerIndices: number[]; signersHex: string; signedWeight: string; meets67: boolean; aggregateSignature: string; signedMessage: string }[];
}

const vectors = JSON.parse(
  readFileSync(new URL('../fixtures/warp-vectors.json', import.meta.url), 'utf8'),
) as { canonicalSet: CanonicalSetVector; signedMessages: { signedMessage: string; networkID: number }[] };

export const vector = vectors.canonicalSet;
export const fujiMessage = vectors.signedMessages[0]!;

export function nodeIdFor(label: string): string {
  return nodeIdToString(sha256(new TextEncoder().encode(`node-${label}`)).subarray(0, 20));
}

export const KEYLESS_NODE_ID = nodeIdFor('keyless');

/** A, B, C with their keys, plus a keyless validator of weight 50. */
export function fixtureEntries(): ValidatorEntry[] {
  return [
    ...vector.validators.map((v) => ({
      nodeId: nodeIdFor(v.node),
      weight: BigInt(v.weight),
      publicKey: hexToBytes(v.publicKey),
    })),
    { nodeId: KEYLESS_NODE_ID, weight: BigInt(vector.keylessWeight), publicKey: null },
  ];
}

/** The same set as a platform.getValidatorsAt result (current bare-map shape). */
export function fixtureValidatorsAtResult(): Record<string, { publicKey: string | null; weight: string }> {
  return Object.fromEntries(
    fixtureEntries().map((e) => [
      e.nodeId,
      { publicKey: e.publicKey ? `0x${Buffer.from(e.publicKey).toString('hex')}` : null, weight: e.weight.toString() },
    ]),
  );
}

/** The backend with a hook on every public key parse. */
export function countingBackend(bls: BlsBackend, onParse: () => void): BlsBackend {
  return new Proxy(bls, {
    get(target, prop) {
      if (prop === 'publicKeyFromBytes') {
        return (bytes: Uint8Array) => {
          onParse();
          return target.publicKeyFromBytes(bytes);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
