// The two contracts the relayer talks to on an EVM chain, as typed viem ABIs: the Warp precompile
// (avalanchego graft/*/precompile/contracts/warp/warpbindings/IWarpMessenger.sol) and the parts of
// TeleporterMessenger v1 a relayer calls (icm-contracts ITeleporterMessenger.sol).
import { parseAbi, parseAbiItem } from 'viem';

/** The Warp precompile, at the same address on the C-Chain and every subnet-evm chain. */
export const WARP_PRECOMPILE_ADDRESS = '0x0200000000000000000000000000000000000005' as const;

export const SEND_WARP_MESSAGE_EVENT = parseAbiItem(
  'event SendWarpMessage(address indexed sender, bytes32 indexed messageID, bytes message)',
);

export const TELEPORTER_MESSENGER_ABI = parseAbi([
  'function receiveCrossChainMessage(uint32 messageIndex, address relayerRewardAddress)',
  'function messageReceived(bytes32 messageID) view returns (bool)',
]);
