// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// A Teleporter receiver for warpgate's interop tests (written here, like the messenger beside
// it): it keeps the last message it got and counts messages per source chain, so a test reads
// on the destination what arrived, and it sends through the messenger, so a test can send from
// a contract as applications do. A message whose bytes are "fail" reverts, to exercise a
// delivery whose execution fails (the messenger must still count it as received).

import {ITeleporterMessengerV1, ITeleporterReceiver, TeleporterFeeInfo, TeleporterMessageInput} from "./TeleporterTypes.sol";

contract ReceiverForTests is ITeleporterReceiver {
    ITeleporterMessengerV1 public immutable messenger;

    bytes32 public lastSourceBlockchainID;
    address public lastOriginSenderAddress;
    bytes public lastMessage;
    uint256 public totalReceived;
    mapping(bytes32 => uint256) public receivedFrom;

    event Received(bytes32 indexed sourceBlockchainID, address indexed originSenderAddress, bytes message);

    constructor(ITeleporterMessengerV1 messenger_) {
        messenger = messenger_;
    }

    function receiveTeleporterMessage(bytes32 sourceBlockchainID, address originSenderAddress, bytes calldata message)
        external
    {
        require(msg.sender == address(messenger), "ReceiverForTests: only the messenger delivers");
        require(keccak256(message) != keccak256("fail"), "ReceiverForTests: asked to fail");
        lastSourceBlockchainID = sourceBlockchainID;
        lastOriginSenderAddress = originSenderAddress;
        lastMessage = message;
        totalReceived += 1;
        receivedFrom[sourceBlockchainID] += 1;
        emit Received(sourceBlockchainID, originSenderAddress, message);
    }

    /// Sends `message` through the messenger with this contract as its origin sender, no fee.
    function sendMessage(
        bytes32 destinationBlockchainID,
        address destinationAddress,
        uint256 requiredGasLimit,
        address[] calldata allowedRelayerAddresses,
        bytes calldata message
    ) external returns (bytes32 messageID) {
        return messenger.sendCrossChainMessage(
            TeleporterMessageInput({
                destinationBlockchainID: destinationBlockchainID,
                destinationAddress: destinationAddress,
                feeInfo: TeleporterFeeInfo(address(0), 0),
                requiredGasLimit: requiredGasLimit,
                allowedRelayerAddresses: allowedRelayerAddresses,
                message: message
            })
        );
    }
}
