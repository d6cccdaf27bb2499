// The relayer's seams. The engine (relayer/engine.ts) moves each Teleporter message through its
// states and depends only on these interfaces: where messages come from (a source chain), where
// they go (a destination chain), how they are signed (warpgate's own aggregator, in process), and
// where their state lives (an embedded store by default, Redis with leases when replicas share
// one). The EVM side of the first two is relayer/evm/ (viem); the stores are relayer/store/.
//
// Every hex value is 0x-prefixed lower case; blockchain IDs are cb58, as avalanchego prints them.

export type Hex = `0x${string}`;

/** One Teleporter message as its source chain's SendWarpMessage log carried it. */
export interface SourceMessage {
  /** The Warp message ID: sha256 of the unsigned message bytes. The store's key. */
  readonly warpMessageId: Hex;
  /** Teleporter's own ID of the message (what `messageReceived` takes on the destination). */
  readonly teleporterMessageId: Hex;
  readonly sourceBlockchainId: string;
  readonly destinationBlockchainId: string;
  /** The unsigned Warp message, as the log's `message` field held it. */
  readonly unsignedMessage: Hex;
  readonly blockNumber: number;
  readonly blockHash: Hex;
  readonly transactionHash: Hex;
  readonly logIndex: number;
  /** From the decoded TeleporterMessage. */
  readonly originSenderAddress: Hex;
  readonly destinationAddress: Hex;
  readonly requiredGasLimit: bigint;
  readonly allowedRelayerAddresses: readonly Hex[];
  /** Receipts the message carries: each adds to the delivery's gas. */
  readonly receiptCount: number;
  /** The TeleporterMessage's `message` length in bytes (gas is charged per byte). */
  readonly payloadBytes: number;
}

/** What a source chain's watcher reports: one accepted block's Teleporter messages, in log order. */
export interface SourceBlock {
  readonly number: number;
  readonly hash: Hex;
  readonly messages: readonly SourceMessage[];
}

/** A source chain: catch-up by ranges, then live blocks. Only accepted blocks: no reorgs. */
export interface MessageSource {
  readonly blockchainId: string;
  /** The newest accepted block's number. */
  head(signal?: AbortSignal): Promise<number>;
  /** The blocks in [from, to] that hold Teleporter messages, ascending; the caller bounds the range. */
  blocksInRange(from: number, to: number, signal?: AbortSignal): Promise<SourceBlock[]>;
  /**
   * Live blocks, every accepted block in order (also those without messages, so a checkpoint can
   * move). `onDrop` is called once when the subscription is lost; the engine catches up from its
   * checkpoint with blocksInRange and subscribes again. Returns the function that unsubscribes.
   */
  subscribe(handlers: { onBlock(block: SourceBlock): void; onDrop(reason: Error): void }): () => void;
}

/** A destination chain's Warp verification rules (docs/relayer.md: which set signs). */
export interface WarpRules {
  /** Quorum numerator of 100 (0 in a config means 67). */
  readonly quorumNumerator: number;
  readonly requirePrimaryNetworkSigners: boolean;
}

/** A delivery transaction as it is recorded *before* it is broadcast. */
export interface Submission {
  readonly txHash: Hex;
  readonly from: Hex;
  readonly nonce: number;
  readonly gasLimit: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  /** ms since the epoch. */
  readonly at: number;
}

export type DeliveryOutcome =
  | { readonly kind: 'delivered'; readonly txHash: Hex; readonly gasUsed: bigint; readonly effectiveGasPrice: bigint }
  /** The transaction reverted, or never mined, but `messageReceived` is true: someone delivered it. */
  | { readonly kind: 'delivered-by-other'; readonly txHash?: Hex }
  /** Not delivered; retry later (the reason is recorded; `submissions` were broadcast and may still mine). */
  | { readonly kind: 'retry'; readonly reason: string }
  /** Not delivered and retrying cannot help (e.g. reverted while `messageReceived` stays false). */
  | { readonly kind: 'failed'; readonly reason: string };

/** A destination chain: Teleporter's view of a message there, and the delivery transaction. */
export interface MessageDestination {
  readonly blockchainId: string;
  /** The Warp rules the chain verifies with now (re-read after a scheduled upgrade). */
  warpRules(signal?: AbortSignal): Promise<WarpRules>;
  /** Teleporter's `messageReceived(teleporterMessageId)`. */
  messageReceived(teleporterMessageId: Hex, signal?: AbortSignal): Promise<boolean>;
  /** The relayer addresses this destination pays from (a message whose non-empty allowlist names none is skipped). */
  relayerAddresses(): readonly Hex[];
  /**
   * Sends `receiveCrossChainMessage` with the signed message as predicate 0 and waits for its
   * receipt (with fee bumps up to the cap). `record` is awaited before each broadcast (the first
   * and every replacement): it stores the transaction hash so a restart or a standby finds it.
   * `pending` are submissions a previous run recorded for this message: they are waited on (or
   * replaced at the same nonce) before anything new is sent.
   */
  deliver(
    message: SourceMessage,
    signedMessage: Hex,
    options: { readonly pending: readonly Submission[]; record(submission: Submission): Promise<void>; signal?: AbortSignal },
  ): Promise<DeliveryOutcome>;
}

/** Signs an unsigned Warp message with warpgate's aggregator for a destination's rules. */
export type SignMessage = (
  unsignedMessage: Hex,
  destination: { readonly blockchainId: string; readonly rules: WarpRules },
  signal?: AbortSignal,
) => Promise<{ readonly signedMessage: Hex; readonly signers: number }>;

export type MessageStatus = 'seen' | 'signed' | 'submitted' | 'delivered' | 'skipped' | 'parked';

/** A message's durable state. */
export interface MessageRecord {
  readonly route: string;
  readonly status: MessageStatus;
  /** Bumped by every write; conditional updates compare it. */
  readonly version: number;
  readonly message: SourceMessage;
  readonly signedMessage?: Hex;
  /** Every transaction broadcast for it, in order (replacements share a nonce). */
  readonly submissions: readonly Submission[];
  readonly deliveredTxHash?: Hex;
  readonly gasUsed?: string;
  /** Why it was skipped or parked, or the last retry's reason. */
  readonly reason?: string;
  readonly attempts: number;
  /** ms since the epoch: when a parked message is next tried. */
  readonly nextAttemptAt?: number;
  readonly firstSeenAt: number;
  readonly updatedAt: number;
}

/** Where message states and route checkpoints live. Every write is durable when its promise resolves. */
export interface RelayerStore {
  get(warpMessageId: Hex): Promise<MessageRecord | undefined>;
  /**
   * The record of the message with this Teleporter message ID (GET /relay/messages/{id} takes
   * either ID). Optional: without it the engine finds only the Teleporter IDs it saw this run.
   */
  getByTeleporterId?(teleporterMessageId: Hex): Promise<MessageRecord | undefined>;
  /** Stores `record` (version 1) unless one exists; false when it did. */
  insert(warpMessageId: Hex, record: MessageRecord): Promise<boolean>;
  /**
   * Replaces the record only if its stored version is `expectedVersion`; the stored one gets
   * version expectedVersion + 1. False (nothing written) when another writer got there first.
   */
  update(warpMessageId: Hex, expectedVersion: number, next: Omit<MessageRecord, 'version'>): Promise<boolean>;
  /** Records of a route in the given states (oldest first), at most `limit`. */
  list(filter: { readonly route?: string; readonly statuses?: readonly MessageStatus[]; readonly limit: number }): Promise<MessageRecord[]>;
  /** The route's checkpoint: every message in blocks at or below it has a durable state. */
  checkpoint(route: string): Promise<number | undefined>;
  /** Raises the checkpoint (never lowers it). */
  advanceCheckpoint(route: string, height: number): Promise<void>;
  /** Forgets delivered and skipped messages last updated before `before` (ms); returns how many. */
  prune(before: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * Who may deliver a route's messages now. The embedded store's is always true (one relayer);
 * the Redis store's holds a lease per route, renewed in the background (issue: active/standby).
 */
export interface RouteLeases {
  /** True while this relayer holds the route's lease with at least `marginMs` left. */
  holds(route: string, marginMs: number): boolean;
  /**
   * The longest margin `holds` can be asked with and still say true all the time renewals land
   * on schedule (the lease left just before a renewal, less room for its reply). A longer margin
   * would refuse broadcasts of a healthy holder between renewals; undefined: no limit.
   */
  readonly maxMarginMs?: number;
  /** Starts competing for the routes; `onChange` reports gains and losses. */
  start(routes: readonly string[], onChange: (route: string, held: boolean) => void): void;
  stop(): Promise<void>;
}

/** A route as the relayer runs it: one source chain to one destination chain. */
export interface RouteState {
  /** `<source blockchain ID>-><destination blockchain ID>` (cb58 both). */
  readonly id: string;
  readonly sourceBlockchainId: string;
  readonly destinationBlockchainId: string;
  readonly checkpoint: number | undefined;
  /** The source's newest accepted block as last seen; lag = head - checkpoint. */
  readonly head: number | undefined;
  /** Whether this relayer may deliver the route's messages now (always true without Redis). */
  readonly held: boolean;
  readonly inFlight: number;
  readonly parked: number;
  /** Why the route is not running (an unreachable RPC, a chain not there yet), when it is not. */
  readonly problem?: string;
}

/** What the HTTP edge, the status page and the CLI see of a running relayer. */
export interface RelayerControl {
  routes(): readonly RouteState[];
  /** Ready when every route runs (its source and destination answered); else the reasons. */
  readiness(): { readonly ready: boolean; readonly reasons: readonly string[] };
  /** A message's state by its Warp message ID or its Teleporter message ID. */
  find(id: Hex): Promise<MessageRecord | undefined>;
  /**
   * Manual relay (icm-services' POST /relay): the message with Warp ID `messageId` from the logs
   * of block `blockNumber` on `blockchainId`. Resolves once it has a durable state (not once
   * delivered). Throws RelayerError('not-found' | 'no-route' | ...) for what it cannot take.
   */
  relayFromBlock(request: { readonly blockchainId: string; readonly messageId: Hex; readonly blockNumber: number }): Promise<MessageRecord>;
  /** Manual relay (icm-services' POST /relay/message) of an unsigned Warp message from `sourceAddress`. */
  relayMessage(request: { readonly unsignedMessage: Hex; readonly sourceAddress: Hex }): Promise<MessageRecord>;
}
