// Limits one signer applies across all its connections, on top of each connection's own (session.ts):
// - requests: a request rate and a cap on requests being decided and signed at once, so that any
//   number of connections together cannot make the signer (or its node) work without bound; past
//   either, a request is refused at once;
// - inbound connections (listen mode): each one costs a key proof (~11 ms of CPU) when its
//   challenge arrives, so new connections are rate-limited per remote address and overall, and
//   one address may hold only a few of the connection slots. Past any of these the connection is
//   closed with 4008 before anything is proved.
// The signer cannot authenticate the service (docs/peer-protocol.md), so these bound what anyone
// who can reach --listen costs it; they do not keep such a one out.
import { checkRateLimit, TokenBucket, type RateLimit } from './rate-limit.js';

export interface RequestLimits {
  /** Requests over all connections together. */
  rate: RateLimit;
  /** Requests being decided and signed at once over all connections. */
  maxConcurrent: number;
}

export interface InboundLimits {
  /** New inbound connections (each costs a key proof) over all addresses. */
  handshakeRate: RateLimit;
  /** New inbound connections from one remote address. */
  handshakeRatePerAddress: RateLimit;
  /** Connections one remote address may hold at once. */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_REQUEST_LIMITS: Readonly<RequestLimits> = { rate: { perSecond: 1000, burst: 2000 }, maxConcurrent: 256 };

export const DEFAULT_INBOUND_LIMITS: Readonly<InboundLimits> = {
  handshakeRate: { perSecond: 10, burst: 20 },
  handshakeRatePerAddress: { perSecond: 2, burst: 4 },
  maxConnectionsPerAddress: 8,
};

/** Remote addresses whose handshake buckets are kept; the least recently seen go first. */
const MAX_TRACKED_ADDRESSES = 4096;

function checkCount(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${what} must be an integer >= 1, got ${value}`);
  return value;
}

/** Admits requests under the signer-wide rate and concurrency caps. */
export class RequestGate {
  private readonly bucket: TokenBucket;
  private readonly maxConcurrent: number;
  private active = 0;

  constructor(limits: RequestLimits, now?: () => number) {
    this.bucket = new TokenBucket(checkRateLimit(limits.rate, 'request rate'), now);
    this.maxConcurrent = checkCount(limits.maxConcurrent, 'maxConcurrent');
  }

  /** null when admitted (call leave() once done), else the refusal reason to send. */
  enter(): string | null {
    if (this.active >= this.maxConcurrent) return `busy: ${this.maxConcurrent} requests in progress on this signer`;
    if (!this.bucket.take()) return 'rate limited: this signer is answering as many requests as it accepts';
    this.active++;
    return null;
  }

  leave(): void {
    this.active--;
  }

  get inProgress(): number {
    return this.active;
  }
}

/** Decides whether a new inbound connection is served, and counts the connections per address. */
export class InboundAdmission {
  private readonly overall: TokenBucket;
  private readonly byAddress = new Map<string, TokenBucket>();
  private readonly connections = new Map<string, number>();
  private readonly maxPerAddress: number;

  constructor(
    private readonly limits: InboundLimits,
    private readonly now?: () => number,
  ) {
    this.overall = new TokenBucket(checkRateLimit(limits.handshakeRate, 'handshakeRate'), now);
    checkRateLimit(limits.handshakeRatePerAddress, 'handshakeRatePerAddress');
    this.maxPerAddress = checkCount(limits.maxConnectionsPerAddress, 'maxConnectionsPerAddress');
  }

  /** null when admitted (call release() when the connection ends), else why not. */
  admit(address: string): string | null {
    const held = this.connections.get(address) ?? 0;
    if (held >= this.maxPerAddress) return `${address} already has ${held} connections to this signer`;
    // The address's own bucket first, so one that is refused does not spend everyone's.
    if (!this.addressBucket(address).take()) return `too many new connections from ${address}`;
    if (!this.overall.take()) return 'too many new connections';
    this.connections.set(address, held + 1);
    return null;
  }

  release(address: string): void {
    const held = (this.connections.get(address) ?? 0) - 1;
    if (held > 0) this.connections.set(address, held);
    else this.connections.delete(address);
  }

  private addressBucket(address: string): TokenBucket {
    let bucket = this.byAddress.get(address);
    if (bucket) {
      this.byAddress.delete(address);
    } else {
      bucket = new TokenBucket(this.limits.handshakeRatePerAddress, this.now);
      // A forgotten address starts with a full bucket again; the overall bucket still bounds them all.
      for (const oldest of this.byAddress.keys()) {
        if (this.byAddress.size < MAX_TRACKED_ADDRESSES) break;
        this.byAddress.delete(oldest);
      }
    }
    this.byAddress.set(address, bucket);
    return bucket;
  }
}
