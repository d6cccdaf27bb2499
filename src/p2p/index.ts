// The public API of the avalanchego p2p transport. Other modules import from here.
export { P2PNetwork, DEFAULT_P2P_LIMITS, type P2PNetworkOptions, type P2PTarget, type P2PNetworkEvents, type P2PLogger, type Timers } from './network.js';
export { ShardedP2PNetwork, shardOf, type ShardedP2PNetworkOptions } from './sharded-network.js';
export { P2PConnection, type ConnectionHooks } from './connection.js';
export type { PeerHandshake } from './handshake.js';
export { type P2PAnswer, type SignatureRequestInput, type ConnectionLimits, type LocalSide, type InboundAppRequest, type DiscoveredPeer } from './connection-types.js';
export { claimedIpPort } from './peer-list.js';
export { P2PRequestError, StakingCertificateError, HandshakeRefusedError, P2PProtocolError, type PeerFault, type CloseReason, type DropKind } from './errors.js';
export { dialPeer, peerCertificateOf, tlsServerOptions, P2PDialError, type DialFailure } from './tls.js';
export { makeLocalSide, type LocalSideOptions } from './local-side.js';
export { generateStakingCertificate, selfSignedCertificatePem, loadStakingIdentity, ephemeralStakingIdentity, certificateDerFromPem, type StakingIdentity } from './identity.js';
export { parseStakingCertificate, checkPeerCertificate, nodeIdFromCertificate, nodeIdBytesFromCertificate, type StakingCertificate } from './staking-certificate.js';
export { unsignedIpBytes, ipTo16Bytes, ipToWireBytes, ipFromWireBytes, signIpWithTlsKey, verifyIpTlsSignature, signIpWithBls, verifyIpBlsSignature } from './signed-ip.js';
export { APP_ERROR, EVM_VERIFIER_ERROR, appErrorName, decodeSignatureRequest, encodeSignatureResponse, decodeUvarint, encodeUvarint } from './acp118.js';
export { initCompression } from './compression.js';
export type { ClaimedIpPort, Handshake } from './gen/p2p/p2p_pb.js';
export { parseBloomFilter, newBloomFilter, bloomAdd, bloomContains, bloomHash, gossipId, marshalBloomFilter } from './bloom.js';
export { DEFAULT_RECONNECT_POLICY, DEFAULT_PENALTY_POLICY, type ReconnectPolicy, type PenaltyPolicy } from './reconnect.js';
export {
  DEFAULT_CLIENT_VERSION,
  MAINNET_MIN_COMPATIBLE,
  FUJI_MIN_COMPATIBLE,
  parseVersion,
  formatVersion,
  isCompatible,
  compareVersions,
  type ClientVersion,
} from './version.js';
export * from './constants.js';
