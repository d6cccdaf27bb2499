// avalanchego's p2p numbers, each checked in ava-labs/avalanchego (master at 1cf1fc3 and the
// v1.15.0-fuji release); the file that states it is named beside each.

/** utils/constants/networking.go DefaultMaxMessageSize: a frame body and a decompressed message. */
export const MAX_MESSAGE_BYTES = 2 * 1024 * 1024;
/** staking/parse.go MaxCertificateLen. */
export const MAX_CERTIFICATE_BYTES = 2 * 1024;
/** utils/constants/networking.go DefaultNetworkMaxClockDifference (handshake my_time, signed IP time). */
export const MAX_CLOCK_DIFFERENCE_S = 60;
/** utils/constants/networking.go DefaultPingPongTimeout: a node closes a connection it read nothing from for this long. */
export const PING_PONG_TIMEOUT_MS = 30_000;
/** utils/constants/networking.go DefaultPingFrequency = 3/4 of the pong timeout. */
export const PING_FREQUENCY_MS = (3 * PING_PONG_TIMEOUT_MS) / 4;
/**
 * utils/constants/networking.go DefaultNetworkMaximumInboundTimeout: a node caps an inbound
 * request's deadline at this (message/messages.go), so no longer is sent on the wire.
 */
export const MAX_INBOUND_TIMEOUT_MS = 10_000;
/** network/peer/peer.go maxBloomSaltLen. */
export const MAX_BLOOM_SALT_BYTES = 32;
/** network/peer/peer.go maxNumTrackedSubnets. */
export const MAX_TRACKED_SUBNETS = 16;
/** network/p2p/handler.go: TxGossip = 0, AtomicTxGossip = 1, SignatureRequest = 2 (ACP-118). */
export const SIGNATURE_REQUEST_HANDLER_ID = 2;
/** avalanchego's staking port, used as the claimed port of an outbound-only warpgate. */
export const DEFAULT_STAKING_PORT = 9651;
