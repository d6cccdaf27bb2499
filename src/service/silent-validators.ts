// avalanchego answers nothing at all to a request for a chain it does not run or is still
// bootstrapping (snow/networking/router/chain_router.go HandleInbound), nor to any request to a
// validatorOnly subnet's chain from a NodeID outside the subnet's allowedNodes (the same place,
// subnets/subnet.go IsAllowed): warpgate sees timeouts only. This notes, per avalanchego validator
// (NodeID), the chains it answered (a signature or an AppError: the chain's handler got the
// request) and how many requests in a row it left unanswered per chain, and names the two
// patterns those drops leave, with their likely reason and the remedy, for /ready, the status
// page, the log and the 503. Memory is bounded: at most MAX_NODES validators (the least recently
// heard of forgotten first) and MAX_CHAINS chains each.
import { idToString } from '../warp/cb58.js';
import { bytesToHex, hexToBytes } from '../warp/hex.js';
import type { SilentValidator } from '../server/status/report.js';

/** Unanswered requests in a row on a chain before the pattern is named. */
const SILENT_AFTER = 3;
const MAX_NODES = 10_000;
const MAX_CHAINS = 32;
/** Silences listed in /ready and on the status page at most. */
const MAX_LISTED = 20;

interface NodeRecord {
  /** Chains (hex) that answered at least once. */
  answered: Set<string>;
  /** Unanswered requests in a row, by chain (hex). */
  unanswered: Map<string, number>;
}

/** A validator that drops this service's requests without an answer, as far as the pattern shows (server/status/report.ts). */
type Silence = SilentValidator;

const REMEDY_ALLOWED_NODES =
  "pin warpgate's NodeID (p2p.tlsCertFile and p2p.tlsKeyFile; it is shown in /ready) and ask the subnet's operators to add it to allowedNodes if the subnet is validatorOnly";

function explain(pattern: Silence['pattern'], chain: string): { reason: string; remedy: string } {
  if (pattern === 'chain') {
    return {
      reason: `it answers other chains but never chain ${chain}: it does not run that chain or is still bootstrapping it, or the chain's subnet is validatorOnly and warpgate's NodeID is not in its allowedNodes (avalanchego drops such requests without an answer)`,
      remedy: `${REMEDY_ALLOWED_NODES}; otherwise ask the validator's operator to track the subnet and let it finish bootstrapping`,
    };
  }
  return {
    reason: `it is connected but has answered no request at all (last asked on chain ${chain}): it drops them, as avalanchego does while bootstrapping a chain or for a validatorOnly subnet that does not list warpgate's NodeID in allowedNodes`,
    remedy: `check that the validator is bootstrapped (info.isBootstrapped) and tracks the chain; ${REMEDY_ALLOWED_NODES}`,
  };
}

export class SilentValidators {
  private readonly nodes = new Map<string, NodeRecord>();

  /** An answer (a signature or an AppError) from `nodeId` on `chainId`. */
  answered(nodeId: string, chainId: Uint8Array): void {
    const r = this.touch(nodeId);
    const chain = bytesToHex(chainId);
    r.unanswered.delete(chain);
    if (r.answered.size < MAX_CHAINS) r.answered.add(chain);
  }

  /** A request to `nodeId` on `chainId` timed out. The silence it completes, when it just completed one (to log once). */
  unanswered(nodeId: string, chainId: Uint8Array): Silence | undefined {
    const r = this.touch(nodeId);
    const chain = bytesToHex(chainId);
    if (!r.unanswered.has(chain) && r.unanswered.size >= MAX_CHAINS) return undefined;
    const n = (r.unanswered.get(chain) ?? 0) + 1;
    r.unanswered.set(chain, n);
    return n === SILENT_AFTER ? this.silenceOf(nodeId, r, chain, n) : undefined;
  }

  /** The validators whose pattern is named now, the longest silences first (at most MAX_LISTED). */
  list(): Silence[] {
    const out: Silence[] = [];
    for (const [nodeId, r] of this.nodes) {
      for (const [chain, n] of r.unanswered) {
        const s = n >= SILENT_AFTER ? this.silenceOf(nodeId, r, chain, n) : undefined;
        if (s) out.push(s);
      }
    }
    return out.sort((a, b) => b.unansweredInARow - a.unansweredInARow).slice(0, MAX_LISTED);
  }

  /** The silence of `nodeId` on `chainId`, when its pattern is named. */
  of(nodeId: string, chainId: Uint8Array): Silence | undefined {
    const r = this.nodes.get(nodeId);
    const chain = bytesToHex(chainId);
    const n = r?.unanswered.get(chain) ?? 0;
    return r && n >= SILENT_AFTER ? this.silenceOf(nodeId, r, chain, n) : undefined;
  }

  private silenceOf(nodeId: string, r: NodeRecord, chain: string, n: number): Silence | undefined {
    // It answered this chain before: a slow node, or one that stopped; no pattern to name.
    if (r.answered.has(chain)) return undefined;
    const pattern = r.answered.size > 0 ? 'chain' : 'everything';
    const chainId = idToString(hexToBytes(chain));
    return { nodeId, pattern, chainId, unansweredInARow: n, ...explain(pattern, chainId) };
  }

  private touch(nodeId: string): NodeRecord {
    const r = this.nodes.get(nodeId) ?? { answered: new Set<string>(), unanswered: new Map<string, number>() };
    this.nodes.delete(nodeId);
    this.nodes.set(nodeId, r);
    if (this.nodes.size > MAX_NODES) this.nodes.delete(this.nodes.keys().next().value!);
    return r;
  }
}

/** One line for a 503: how many of the validators that timed out drop this chain's requests, and what to do. */
export function silenceHint(silences: readonly Silence[]): string | undefined {
  if (silences.length === 0) return undefined;
  const chain = silences.filter((s) => s.pattern === 'chain');
  const all = silences.filter((s) => s.pattern === 'everything');
  const parts: string[] = [];
  if (chain.length > 0) parts.push(`${chain.length} connected avalanchego validator(s) answer other chains but never this one (${chain[0]!.reason.replace(/^it answers other chains but never chain \S+: /, '')})`);
  if (all.length > 0) parts.push(`${all.length} connected avalanchego validator(s) have answered no request at all`);
  return `${parts.join('; ')}; remedy: ${(chain[0] ?? all[0])!.remedy}`;
}
