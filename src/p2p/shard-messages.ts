// What the main thread and a p2p I/O shard (a worker thread that owns a slice of the validator
// connections, shard-worker.ts) say to each other. The hot messages are batched: every ask the
// main thread makes in one turn of its event loop goes to a shard as one `asks` message, with the
// request bodies the batch shares sent once; every answer a shard reads in one turn comes back as
// one `answers` message, the signatures packed into one buffer. Shards move bytes only: weights,
// targets and quorum stay on the main thread (docs/architecture.md).
import type { BackendName } from '../bls/types.js';
import type { CloseReason, DropKind } from './errors.js';
import type { SignatureRequestInput } from './connection-types.js';
import type { P2PNetworkSettings } from './network.js';
import type { DialFailure } from './tls.js';
import type { RequestFailure } from '../util/request-failure.js';

/** A shard's configuration (its workerData). */
export interface ShardInit extends P2PNetworkSettings {
  shard: number;
  /** How many shards there are (shardOf). */
  shards: number;
  certPem: string;
  keyPem: string;
  /** The same BLS key in every shard, so that every connection claims one signed address. */
  blsSecretKey: Uint8Array;
  blsBackend: BackendName;
  /** Forward debug-level log lines (off unless the main logger would print them). */
  logDebug: boolean;
}

/** A validator a shard keeps connected, with its registered BLS key (to check its Handshake's ip_bls_sig). */
export interface ShardTarget {
  nodeId: string;
  host: string;
  port: number;
  blsKey?: Uint8Array;
}

export type ToShard =
  | { type: 'targets'; targets: ShardTarget[] }
  | { type: 'wanted'; nodeIds: string[] }
  /** asks[i] is sent to nodeIds[i] with requests[requestOf[i]], ids[i] names it in the answer. */
  | { type: 'asks'; requests: SignatureRequestInput[]; ids: number[]; nodeIds: string[]; requestOf: number[]; timeoutsMs: number[] }
  | { type: 'cancel'; ids: number[] }
  | { type: 'penalize'; nodeId: string; reason: string }
  /** Cooldowns a restarted shard's validators were serving when its thread died. */
  | { type: 'bans'; bans: { nodeId: string; forMs: number }[] }
  | { type: 'pullPeerList' }
  /** P2PNetwork.retrySoon: the validator is up again. */
  | { type: 'retrySoon'; nodeId: string }
  | { type: 'close' };

/** An ask that ended without a signature. */
export type ShardOutcome = { id: number; kind: 'refused'; code: number; reason: string } | { id: number; kind: 'failed'; reason: RequestFailure; detail: string };

export type FromShard =
  | { type: 'started' }
  /** signatureIds[i]'s signature is signatures[96 i, 96 (i + 1)). */
  | { type: 'answers'; signatureIds: number[]; signatures: Uint8Array; others: ShardOutcome[] }
  | { type: 'connected'; nodeId: string }
  | { type: 'disconnected'; nodeId: string; reason: CloseReason }
  | { type: 'dialFailed'; nodeId: string; kind: DialFailure; message: string }
  /** The certificate as DER: the main thread parses it again (PeerList gossip is rare). */
  | { type: 'discovered'; nodeId: string; host: string; port: number; timestamp: bigint; certificateDer: Uint8Array }
  | { type: 'stats'; dialing: number }
  /** A strike against a NodeID another shard owns: the main thread passes it on. */
  | { type: 'penalize'; nodeId: string; reason: string }
  /** A validator of this shard was put in a cooldown (kept on the main thread across restarts). */
  | { type: 'banned'; nodeId: string; cooldownMs: number }
  | { type: 'dropped'; nodeId: string; kind: DropKind }
  | { type: 'log'; level: 'debug' | 'info' | 'warn'; obj: object; msg: string }
  | { type: 'closed' };

export const SIGNATURE_BYTES = 96;

/** FNV-1a over the NodeID's characters: a validator always lands on the same shard. */
export function shardOf(nodeId: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < nodeId.length; i++) {
    h ^= nodeId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}
