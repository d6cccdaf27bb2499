// Whom the avalanchego peer transport keeps connected, and at which address. Addresses come from
// three sources: p2p.peers in the config (the operator's word: it wins, and it is enough on its
// own), info.peers of upstreams.node (the `publicIP` each peer signed) and PeerList gossip (signed
// ClaimedIpPorts); between the last two, the latest learnt wins. The configured validators are
// always connected; then the validators of the subnets being signed for, those of
// readiness.subnets first, heaviest first, up to p2p.maxPeers. Validators whose address is not
// known yet are wanted: gossip or the next info.peers may name them. Pure.
import type { ConnectCandidate } from './validator-directory.js';

interface Address {
  host: string;
  port: number;
}

type LearntFrom = 'node' | 'gossip';

export interface PlannedTarget extends Address {
  nodeId: string;
}

/** Learnt addresses kept at most (the oldest forgotten first): candidates are bounded by the sets read, this bounds the rest. */
const MAX_LEARNT = 50_000;

export class AddressBook {
  private readonly configured: ReadonlyMap<string, Address>;
  /** Insertion order is recency. */
  private readonly learnt = new Map<string, Address & { from: LearntFrom }>();

  constructor(configured: readonly PlannedTarget[]) {
    this.configured = new Map(configured.map((p) => [p.nodeId, { host: p.host, port: p.port }]));
  }

  /** The configured validators, in the config's order. */
  get configuredTargets(): PlannedTarget[] {
    return [...this.configured].map(([nodeId, a]) => ({ nodeId, ...a }));
  }

  /** Records an address; true when it changed what addressOf answers. */
  learn(nodeId: string, address: Address, from: LearntFrom): boolean {
    const before = this.addressOf(nodeId);
    this.learnt.delete(nodeId);
    this.learnt.set(nodeId, { host: address.host, port: address.port, from });
    while (this.learnt.size > MAX_LEARNT) this.learnt.delete(this.learnt.keys().next().value!);
    const after = this.addressOf(nodeId)!;
    return before?.host !== after.host || before.port !== after.port;
  }

  addressOf(nodeId: string): Address | undefined {
    const a = this.configured.get(nodeId) ?? this.learnt.get(nodeId);
    return a && { host: a.host, port: a.port };
  }
}

/**
 * The targets to keep connected (configured first, then candidates in their order, at most
 * `maxPeers`) and the candidates without a known address.
 */
export function planTargets(candidates: readonly ConnectCandidate[], book: AddressBook, maxPeers: number): { targets: PlannedTarget[]; wanted: string[] } {
  const targets = book.configuredTargets.slice(0, maxPeers);
  const chosen = new Set(targets.map((t) => t.nodeId));
  const wanted: string[] = [];
  for (const c of candidates) {
    if (chosen.has(c.nodeId)) continue;
    const address = book.addressOf(c.nodeId);
    if (!address) wanted.push(c.nodeId);
    else if (targets.length < maxPeers) {
      targets.push({ nodeId: c.nodeId, ...address });
      chosen.add(c.nodeId);
    }
  }
  return { targets, wanted };
}
