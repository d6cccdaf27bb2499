// What the P-Chain policy must know about its node before it believes the node's P-Chain state:
// the network the node is on (info.getNetworkID) and whether it has finished bootstrapping the
// P-Chain (info.isBootstrapped). A node still bootstrapping serves a P-Chain that is behind, and a
// node on another network serves another P-Chain altogether.
//
// Both facts are remembered for `ttlMs` so that a burst of requests costs one call each, and
// concurrent checks share one call in flight. Only good news is remembered: "bootstrapped" is
// kept, "not bootstrapped" is asked again next time (the node may finish at any moment). forget()
// drops everything, for when the node stopped answering (it may come back restarted, bootstrapping
// again or configured for another network).
import type { InfoClient } from '../node/info.js';

const DEFAULT_NODE_FACTS_TTL_MS = 5_000;

interface NodeFactsOptions {
  info: InfoClient;
  ttlMs?: number;
  /** Milliseconds on a monotonic clock; tests pass their own. */
  now?: () => number;
}

export class NodeFacts {
  private readonly info: InfoClient;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private network: { id: number; until: number } | undefined;
  private bootstrappedUntil = -Infinity;
  private networkCall: Promise<number> | undefined;
  private bootstrappedCall: Promise<boolean> | undefined;
  /** Bumped by forget(): an answer to a call made before it is not remembered. */
  private generation = 0;

  constructor(opts: NodeFactsOptions) {
    this.info = opts.info;
    this.ttlMs = opts.ttlMs ?? DEFAULT_NODE_FACTS_TTL_MS;
    if (!(this.ttlMs >= 0)) throw new RangeError(`node facts ttlMs must be >= 0, got ${this.ttlMs}`);
    this.now = opts.now ?? (() => performance.now());
  }

  /** The node's network ID; throws a NodeError when it cannot be read. */
  networkId(): Promise<number> {
    const known = this.network;
    if (known && this.now() < known.until) return Promise.resolve(known.id);
    this.networkCall ??= this.askNetworkId().finally(() => (this.networkCall = undefined));
    return this.networkCall;
  }

  /** Whether the node has bootstrapped the P-Chain; throws a NodeError when it cannot be read. */
  bootstrapped(): Promise<boolean> {
    if (this.now() < this.bootstrappedUntil) return Promise.resolve(true);
    this.bootstrappedCall ??= this.askBootstrapped().finally(() => (this.bootstrappedCall = undefined));
    return this.bootstrappedCall;
  }

  forget(): void {
    this.generation++;
    this.network = undefined;
    this.bootstrappedUntil = -Infinity;
  }

  private async askNetworkId(): Promise<number> {
    const generation = this.generation;
    const id = await this.info.getNetworkId();
    if (generation === this.generation) this.network = { id, until: this.now() + this.ttlMs };
    return id;
  }

  private async askBootstrapped(): Promise<boolean> {
    const generation = this.generation;
    const value = await this.info.isBootstrapped('P');
    if (value && generation === this.generation) this.bootstrappedUntil = this.now() + this.ttlMs;
    return value;
  }
}
