// The validators of the sets the service reads, as the avalanchego peer transport needs them: a
// canonical validator is one BLS key (aggregations ask by key) standing for one or more NodeIDs
// (validators that registered the same key are merged), and p2p connections are by NodeID. Fed
// by the same tracking as peer admission (peer-admission.ts trackValidatorSets): every set an
// aggregation or /ready reads, and the current sets of readiness.subnets, kept current. Pure.
import type { PublicKey } from '../bls/types.js';
import type { CanonicalSet } from '../validators/canonical-set.js';
import { bytesToHex } from '../warp/hex.js';

/** A NodeID worth connecting to, and how much signing weight a connection to it brings. */
export interface ConnectCandidate {
  nodeId: string;
  /** Of a readiness.subnets set: kept connected before any other. */
  pinned: boolean;
  /** Its validator's weight as a share of its subnet's total (the largest over the subnets it validates). */
  share: number;
}

interface DirectoryOptions {
  /** readiness.subnets (hex IDs): their current sets are always kept. */
  pinnedSubnets: readonly string[];
  /** Other subnets remembered, the least recently read forgotten first. */
  maxSubnets: number;
}

export class ValidatorDirectory {
  private readonly pinnedSubnets: ReadonlySet<string>;
  private readonly pinned = new Map<string, CanonicalSet>();
  /** The last set read per other subnet; insertion order is recency. */
  private readonly recent = new Map<string, CanonicalSet>();
  private readonly maxSubnets: number;
  private index: { nodeIdsByKey: Map<string, readonly string[]> } | undefined;
  /**
   * The newest Primary Network set read (height 0, the current set, counts as newest) and its
   * keys by NodeID: the only keys a Handshake's BLS signature is checked against.
   */
  private primary: { height: number; keyByNodeId: Map<string, PublicKey> } | undefined;
  private readonly listeners: (() => void)[] = [];

  constructor(opts: DirectoryOptions) {
    if (!(Number.isSafeInteger(opts.maxSubnets) && opts.maxSubnets >= 1)) throw new RangeError(`maxSubnets must be a positive integer, got ${opts.maxSubnets}`);
    this.pinnedSubnets = new Set(opts.pinnedSubnets.map((s) => s.toLowerCase()));
    this.maxSubnets = opts.maxSubnets;
  }

  /** Called when the validators it knows changed (another set was read). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** A set the service read. A pinned subnet's entry is its current set (height 0) only. */
  observe(subnetId: Uint8Array, pChainHeight: number, set: CanonicalSet): void {
    const subnet = bytesToHex(subnetId);
    if (subnetId.every((b) => b === 0)) this.observePrimary(pChainHeight, set);
    let known: CanonicalSet | undefined;
    if (this.pinnedSubnets.has(subnet)) {
      if (pChainHeight !== 0) return;
      known = this.pinned.get(subnet);
      this.pinned.set(subnet, set);
    } else {
      known = this.recent.get(subnet);
      this.recent.delete(subnet);
      this.recent.set(subnet, set);
      while (this.recent.size > this.maxSubnets) this.recent.delete(this.recent.keys().next().value!);
    }
    // The current set is read again every few seconds: the same validators are no news.
    if (known && sameValidators(known, set)) return;
    this.index = undefined;
    for (const l of this.listeners) l();
  }

  /**
   * The last set read of a subnet (a pinned subnet's current set), reading nothing: what the
   * status page shows, so a look never makes the service read, admit or dial a subnet's validators.
   */
  heldSet(subnetId: Uint8Array): CanonicalSet | undefined {
    const subnet = bytesToHex(subnetId);
    return this.pinned.get(subnet) ?? this.recent.get(subnet);
  }

  /** The NodeIDs registered with this BLS key (hex, 48 bytes) in any set known; empty when none. */
  nodeIdsOf(publicKeyHex: string): readonly string[] {
    return this.built().nodeIdsByKey.get(publicKeyHex.toLowerCase()) ?? [];
  }

  /**
   * The BLS key a NodeID registered as a current Primary Network validator, to check the BLS
   * signature in its Handshake; undefined for anyone else. avalanchego checks that signature only
   * against the Primary Network's current key (network/peer/peer.go shouldDisconnect): an L1
   * validator, or one whose key of an older height differs, signs its IP with a key it is not
   * bound to, and refusing it would refuse an honest node.
   */
  blsKeyOf(nodeId: string): PublicKey | undefined {
    return this.primary?.keyByNodeId.get(nodeId);
  }

  /** NodeIDs of every validator known, pinned subnets first, then by share of weight, heaviest first. */
  candidates(): ConnectCandidate[] {
    const best = new Map<string, ConnectCandidate>();
    const add = (set: CanonicalSet, pinned: boolean): void => {
      if (set.totalWeight === 0n) return;
      for (const v of set.validators) {
        // Parts per billion: exact enough to order, and a plain number to sort by.
        const share = Number((v.weight * 1_000_000_000n) / set.totalWeight) / 1e9;
        for (const nodeId of v.nodeIds) {
          const seen = best.get(nodeId);
          if (!seen || rank(pinned, share) > rank(seen.pinned, seen.share)) best.set(nodeId, { nodeId, pinned, share });
        }
      }
    };
    for (const set of this.pinned.values()) add(set, true);
    for (const set of this.recent.values()) add(set, false);
    return [...best.values()].sort((a, b) => rank(b.pinned, b.share) - rank(a.pinned, a.share) || (a.nodeId < b.nodeId ? -1 : 1));
  }

  private observePrimary(pChainHeight: number, set: CanonicalSet): void {
    const height = pChainHeight === 0 ? Infinity : pChainHeight;
    if (this.primary && this.primary.height > height) return;
    const keyByNodeId = new Map<string, PublicKey>();
    for (const v of set.validators) for (const nodeId of v.nodeIds) keyByNodeId.set(nodeId, v.publicKey);
    this.primary = { height, keyByNodeId };
  }

  private built(): NonNullable<ValidatorDirectory['index']> {
    if (this.index) return this.index;
    const nodeIdsByKey = new Map<string, readonly string[]>();
    for (const set of [...this.pinned.values(), ...this.recent.values()]) {
      for (const v of set.validators) {
        const known = nodeIdsByKey.get(v.publicKeyHex);
        nodeIdsByKey.set(v.publicKeyHex, known ? [...new Set([...known, ...v.nodeIds])] : v.nodeIds);
      }
    }
    this.index = { nodeIdsByKey };
    return this.index;
  }
}

function sameValidators(a: CanonicalSet, b: CanonicalSet): boolean {
  if (a === b) return true;
  if (a.totalWeight !== b.totalWeight || a.validators.length !== b.validators.length) return false;
  return a.validators.every((v, i) => {
    const w = b.validators[i]!;
    return v.publicKeyHex === w.publicKeyHex && v.weight === w.weight && v.nodeIds.length === w.nodeIds.length && v.nodeIds.every((id, j) => id === w.nodeIds[j]);
  });
}

/** Pinned subnets' validators rank above every other (a share is at most 1). */
function rank(pinned: boolean, share: number): number {
  return (pinned ? 2 : 0) + share;
}
