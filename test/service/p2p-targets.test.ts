// Whom the p2p transport connects to, pure: the validator directory (BLS key → NodeIDs, merged
// validators, candidates heaviest first with readiness.subnets first) and the target plan
// (configured peers first, then candidates with a known address, at most maxPeers; the rest wanted).
import { describe, expect, it } from 'vitest';
import { loadBackend } from '../../src/bls/index.js';
import { canonicalSet, type ValidatorEntry } from '../../src/validators/canonical-set.js';
import { nodeIdToString } from '../../src/warp/cb58.js';
import { bytesToHex } from '../../src/warp/hex.js';
import { ValidatorDirectory } from '../../src/service/validator-directory.js';
import { AddressBook, planTargets, type PlannedTarget } from '../../src/service/p2p-targets.js';

const bls = loadBackend('blst');
const SUBNET_A = new Uint8Array(32).fill(0xa);
const SUBNET_B = new Uint8Array(32).fill(0xb);
const PRIMARY = new Uint8Array(32);
const nodeId = (i: number): string => nodeIdToString(new Uint8Array(20).fill(i));
const key = (i: number): Uint8Array => bls.publicKeyOf(bls.secretKeyFromBytes(new Uint8Array(32).fill(i))).bytes;

function set(entries: [node: number, weight: bigint, key: number | null][]) {
  const list: ValidatorEntry[] = entries.map(([n, weight, k]) => ({ nodeId: nodeId(n), weight, publicKey: k === null ? null : key(k) }));
  return canonicalSet(list, bls);
}

describe('ValidatorDirectory', () => {
  it('maps a BLS key to every NodeID registered with it (a merged validator)', () => {
    const d = new ValidatorDirectory({ pinnedSubnets: [], maxSubnets: 4 });
    d.observe(SUBNET_A, 0, set([[1, 10n, 1], [2, 20n, 1], [3, 30n, 3]]));
    expect(d.nodeIdsOf(bytesToHex(key(1)))).toEqual([nodeId(1), nodeId(2)]);
    expect(d.nodeIdsOf(bytesToHex(key(3)).toUpperCase())).toEqual([nodeId(3)]);
    expect(d.nodeIdsOf(bytesToHex(key(9)))).toEqual([]);
  });

  it('checks a Handshake BLS signature only against the current Primary Network key, as avalanchego does', () => {
    const d = new ValidatorDirectory({ pinnedSubnets: [], maxSubnets: 4 });
    // An L1 set: its keys bind nobody's Handshake.
    d.observe(SUBNET_A, 0, set([[1, 10n, 1], [2, 20n, 2]]));
    expect(d.blsKeyOf(nodeId(1))).toBeUndefined();
    // The Primary Network at the current height: node 2's key there is 7.
    d.observe(PRIMARY, 0, set([[2, 20n, 7], [3, 30n, 3]]));
    expect(bytesToHex(d.blsKeyOf(nodeId(2))!.bytes)).toBe(bytesToHex(key(7)));
    // An older Primary Network set read later (an aggregation at an old height) changes nothing.
    d.observe(PRIMARY, 100, set([[2, 20n, 8]]));
    expect(bytesToHex(d.blsKeyOf(nodeId(2))!.bytes)).toBe(bytesToHex(key(7)));
    expect(bytesToHex(d.blsKeyOf(nodeId(3))!.bytes)).toBe(bytesToHex(key(3)));
    expect(d.blsKeyOf(nodeId(9))).toBeUndefined();
  });

  it('lists candidates heaviest first by share of their subnet, readiness.subnets first, keyless validators left out', () => {
    const d = new ValidatorDirectory({ pinnedSubnets: [bytesToHex(SUBNET_B)], maxSubnets: 4 });
    // A: node 1 holds 60%, node 2 30%, a keyless 10%. B (pinned): node 3 10%, node 4 90%.
    d.observe(SUBNET_A, 0, set([[1, 60n, 1], [2, 30n, 2], [9, 10n, null]]));
    d.observe(SUBNET_B, 0, set([[3, 10n, 3], [4, 90n, 4]]));
    expect(d.candidates().map((c) => [c.nodeId, c.pinned, c.share])).toEqual([
      [nodeId(4), true, 0.9],
      [nodeId(3), true, 0.1],
      [nodeId(1), false, 0.6],
      [nodeId(2), false, 0.3],
    ]);
    // A pinned subnet's entry is its current set: a set at a height does not replace it.
    d.observe(SUBNET_B, 1234, set([[5, 1n, 5]]));
    expect(d.candidates().map((c) => c.nodeId)).not.toContain(nodeId(5));
  });

  it('tells its listeners when the validators change, not when the same validators are read again; forgets the least recently read subnet', () => {
    const d = new ValidatorDirectory({ pinnedSubnets: [], maxSubnets: 1 });
    let changes = 0;
    d.onChange(() => changes++);
    d.observe(SUBNET_A, 0, set([[1, 1n, 1]]));
    d.observe(SUBNET_A, 0, set([[1, 1n, 1]]));
    expect(changes).toBe(1);
    d.observe(SUBNET_A, 0, set([[1, 2n, 1]]));
    expect(changes).toBe(2);
    d.observe(SUBNET_B, 0, set([[2, 1n, 2]]));
    expect(changes).toBe(3);
    expect(d.candidates().map((c) => c.nodeId)).toEqual([nodeId(2)]);
    expect(d.nodeIdsOf(bytesToHex(key(1)))).toEqual([]);
  });
});

describe('planTargets', () => {
  const candidates = [1, 2, 3, 4].map((i) => ({ nodeId: nodeId(i), pinned: false, share: 1 / i }));
  const at = (i: number): PlannedTarget => ({ nodeId: nodeId(i), host: '10.0.0.' + i, port: 9651 });

  it('connects the configured validators first, then the candidates with an address in order, at most maxPeers; the rest are wanted', () => {
    const book = new AddressBook([at(9)]);
    book.learn(nodeId(3), { host: '10.0.0.3', port: 9651 }, 'node');
    book.learn(nodeId(1), { host: '10.0.0.1', port: 9651 }, 'gossip');
    book.learn(nodeId(4), { host: '10.0.0.4', port: 9651 }, 'node');
    expect(planTargets(candidates, book, 10)).toEqual({ targets: [at(9), at(1), at(3), at(4)], wanted: [nodeId(2)] });
    expect(planTargets(candidates, book, 2)).toEqual({ targets: [at(9), at(1)], wanted: [nodeId(2)] });
  });

  it('keeps a configured address over a discovered one; between discoveries the latest wins', () => {
    const book = new AddressBook([at(1)]);
    expect(book.learn(nodeId(1), { host: '192.0.2.1', port: 1 }, 'node')).toBe(false);
    expect(book.addressOf(nodeId(1))).toEqual({ host: '10.0.0.1', port: 9651 });
    expect(book.learn(nodeId(2), { host: '192.0.2.2', port: 1 }, 'node')).toBe(true);
    expect(book.learn(nodeId(2), { host: '192.0.2.2', port: 1 }, 'gossip')).toBe(false);
    expect(book.learn(nodeId(2), { host: '192.0.2.3', port: 2 }, 'gossip')).toBe(true);
    expect(book.addressOf(nodeId(2))).toEqual({ host: '192.0.2.3', port: 2 });
  });
});
