// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// Teleporter v1's structs and the interfaces around them, as its published ABI defines them.
// The field names and their order are the wire format: a TeleporterMessage travels as
// abi.encode(TeleporterMessage) in a Warp AddressedCall (docs/interop.md, protocol.md §10), so
// they must match what deployed messengers and relayers (icm-services, warpgate) decode.
// Written here for warpgate's interop network; see TeleporterMessengerCompatible.sol for why.

struct TeleporterMessageReceipt {
    uint256 receivedMessageNonce;
    address relayerRewardAddress;
}

struct TeleporterFeeInfo {
    address feeTokenAddress;
    uint256 amount;
}

struct TeleporterMessageInput {
    bytes32 destinationBlockchainID;
    address destinationAddress;
    TeleporterFeeInfo feeInfo;
    uint256 requiredGasLimit;
    address[] allowedRelayerAddresses;
    bytes message;
}

struct TeleporterMessage {
    uint256 messageNonce;
    address originSenderAddress;
    bytes32 destinationBlockchainID;
    address destinationAddress;
    uint256 requiredGasLimit;
    address[] allowedRelayerAddresses;
    TeleporterMessageReceipt[] receipts;
    bytes message;
}

/// A verified Warp message as the precompile hands it out.
struct WarpMessage {
    bytes32 sourceChainID;
    address originSenderAddress;
    bytes payload;
}

/// The Warp precompile at 0x0200000000000000000000000000000000000005 (C-Chain and subnet-evm).
interface IWarpMessenger {
    function sendWarpMessage(bytes calldata payload) external returns (bytes32 messageID);

    function getVerifiedWarpMessage(uint32 index) external view returns (WarpMessage memory message, bool valid);

    function getBlockchainID() external view returns (bytes32 blockchainID);
}

/// What a messenger calls on a message's destination address.
interface ITeleporterReceiver {
    function receiveTeleporterMessage(bytes32 sourceBlockchainID, address originSenderAddress, bytes calldata message) external;
}

/// The part of the messenger's ABI that senders and relayers call.
interface ITeleporterMessengerV1 {
    event BlockchainIDInitialized(bytes32 indexed blockchainID);
    event SendCrossChainMessage(
        bytes32 indexed messageID, bytes32 indexed destinationBlockchainID, TeleporterMessage message, TeleporterFeeInfo feeInfo
    );
    event MessageExecutionFailed(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID, TeleporterMessage message);
    event MessageExecuted(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID);
    event ReceiveCrossChainMessage(
        bytes32 indexed messageID,
        bytes32 indexed sourceBlockchainID,
        address indexed deliverer,
        address rewardRedeemer,
        TeleporterMessage message
    );
    event ReceiptReceived(
        bytes32 indexed messageID,
        bytes32 indexed destinationBlockchainID,
        address indexed relayerRewardAddress,
        TeleporterFeeInfo feeInfo
    );

    function sendCrossChainMessage(TeleporterMessageInput calldata messageInput) external returns (bytes32);

    function retrySendCrossChainMessage(TeleporterMessage calldata message) external;

    function receiveCrossChainMessage(uint32 messageIndex, address relayerRewardAddress) external;

    function retryMessageExecution(bytes32 sourceBlockchainID, TeleporterMessage calldata message) external;

    function messageReceived(bytes32 messageID) external view returns (bool);

    function getRelayerRewardAddress(bytes32 messageID) external view returns (address);

    function getMessageHash(bytes32 messageID) external view returns (bytes32);

    function getFeeInfo(bytes32 messageID) external view returns (address, uint256);

    function getNextMessageID(bytes32 destinationBlockchainID) external view returns (bytes32);

    function getReceiptQueueSize(bytes32 sourceBlockchainID) external view returns (uint256);

    function getReceiptAtIndex(bytes32 sourceBlockchainID, uint256 index) external view returns (TeleporterMessageReceipt memory);
}
