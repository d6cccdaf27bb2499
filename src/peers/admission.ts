// Which BLS keys may dial in to the peer path. Checking a hello's proof costs ~40 ms of pure-JS
// pairing, and any key with a valid proof used to be welcomed (a stranger could fill the peer
// slots with fresh keys), so a key is first looked up here, before any proof check: in mode
// `validators` it must belong to a validator set the service has read (the sets of
// readiness.subnets, kept current, and whatever sets aggregations read) or to the configured
// allowlist; mode `any` admits every key (a private network only). Pure: the service feeds it the
// sets it reads.
import { bytesToHex } from '../warp/hex.js';

type AdmissionMode = 'validators' | 'any';

/** What admission needs of a validator set: CanonicalSet has it. */
interface KeyedSet {
  indexOf(publicKeyHex: string): number | undefined;
}

interface PeerAdmissionOptions {
  mode: AdmissionMode;
  /** BLS public keys (hex, 48 bytes) admitted whatever the sets say. */
  allowedKeys?: readonly string[];
  /** Current sets of these subnets (hex IDs) are always kept: the subnets the service serves. */
  pinnedSubnets?: readonly string[];
  /** Other sets remembered, the least recently read forgotten first. */
  maxSets: number;
}

export class PeerAdmission {
  readonly mode: AdmissionMode;
  private readonly allowed: ReadonlySet<string>;
  private readonly pinnedSubnets: ReadonlySet<string>;
  private readonly pinned = new Map<string, KeyedSet>();
  /** By "subnet@height"; insertion order is recency (re-inserted on every read). */
  private readonly recent = new Map<string, KeyedSet>();
  private readonly maxSets: number;

  constructor(opts: PeerAdmissionOptions) {
    if (!(Number.isSafeInteger(opts.maxSets) && opts.maxSets >= 1)) throw new RangeError(`maxSets must be a positive integer, got ${opts.maxSets}`);
    this.mode = opts.mode;
    this.allowed = new Set((opts.allowedKeys ?? []).map(normalizeKey));
    this.pinnedSubnets = new Set((opts.pinnedSubnets ?? []).map((s) => s.toLowerCase()));
    this.maxSets = opts.maxSets;
  }

  /** Sets whose keys are admitted now. */
  get knownSets(): number {
    return this.pinned.size + this.recent.size;
  }

  /** Records a validator set the service has read (height 0: the current set, replacing the last one read). */
  observe(subnetId: Uint8Array, pChainHeight: number, set: KeyedSet): void {
    const subnet = bytesToHex(subnetId);
    if (pChainHeight === 0 && this.pinnedSubnets.has(subnet)) {
      this.pinned.set(subnet, set);
      return;
    }
    const key = `${subnet}@${pChainHeight}`;
    this.recent.delete(key);
    this.recent.set(key, set);
    while (this.recent.size > this.maxSets) this.recent.delete(this.recent.keys().next().value!);
  }

  /** undefined when `publicKeyHex` may connect; otherwise why not (fits a WebSocket close reason). */
  check(publicKeyHex: string): string | undefined {
    if (this.mode === 'any') return undefined;
    const key = normalizeKey(publicKeyHex);
    if (this.allowed.has(key)) return undefined;
    for (const set of this.pinned.values()) if (set.indexOf(key) !== undefined) return undefined;
    for (const set of this.recent.values()) if (set.indexOf(key) !== undefined) return undefined;
    return this.knownSets === 0
      ? 'no validator set is known yet; retry later'
      : 'not a validator of any subnet this service tracks, nor an allowed key';
  }
}

/** Lower-case hex without 0x, as the pool and canonical sets index keys. */
function normalizeKey(hex: string): string {
  return hex.replace(/^0x/i, '').toLowerCase();
}
