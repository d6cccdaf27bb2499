// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// Why this contract exists: warpgate's relayer is tested against a real avalanchego network
// (npm run test:interop), which needs Teleporter v1 on the C-Chain and on the L1. Neither npm nor
// the Go module proxy serves ava-labs/icm-contracts here, and this project never commits source
// fetched from another repository. So this is warpgate's own messenger, written in this
// repository to Teleporter v1's published ABI and message format: the same structs, events and
// functions a sender and a relayer use, message nonces starting at 1, message IDs computed as
// keccak256(abi.encode(messenger, source, destination, nonce)), receipts carried back (at most 5
// per message), the same checks on delivery. It is NOT the audited TeleporterMessenger and is
// meant for test networks only.
//
// Left out: fees (a message's feeInfo.amount must be 0, so relayer rewards are never owed),
// addFeeAmount, sendSpecifiedReceipts and redeemRelayerRewards.

import {
    IWarpMessenger,
    ITeleporterMessengerV1,
    ITeleporterReceiver,
    TeleporterFeeInfo,
    TeleporterMessage,
    TeleporterMessageInput,
    TeleporterMessageReceipt,
    WarpMessage
} from "./TeleporterTypes.sol";

contract TeleporterMessengerCompatible is ITeleporterMessengerV1 {
    IWarpMessenger public constant WARP_MESSENGER = IWarpMessenger(0x0200000000000000000000000000000000000005);

    /// Receipts attached to one outgoing message, oldest first; the rest wait for the next one.
    uint256 private constant MAX_RECEIPTS_PER_MESSAGE = 5;

    struct SentMessageInfo {
        bytes32 messageHash;
        TeleporterFeeInfo feeInfo;
    }

    /// Receipts owed to one chain: a FIFO over [first, last).
    struct ReceiptQueue {
        uint256 first;
        uint256 last;
        mapping(uint256 => TeleporterMessageReceipt) items;
    }

    /// This chain, from the precompile; set by the first send or receive.
    bytes32 public blockchainID;
    /// Messages sent so far; the next one's nonce is messageNonce + 1 (0 is never a nonce).
    uint256 public messageNonce;

    mapping(bytes32 => ReceiptQueue) public receiptQueues;
    /// Sent messages not yet acknowledged by a receipt: their hash (for retries) and fee.
    mapping(bytes32 => SentMessageInfo) public sentMessageInfo;
    /// Received messages whose execution failed: their hash, so anyone may retry them.
    mapping(bytes32 => bytes32) public receivedFailedMessageHashes;

    /// Received message ID => its nonce (non-zero means received).
    mapping(bytes32 => uint256) private _receivedNonces;
    mapping(bytes32 => address) private _relayerRewardAddresses;

    bool private _sending;
    bool private _receiving;

    /// A receiver's code may send messages while it runs, but never start a second send.
    modifier oneSendAtATime() {
        require(!_sending, "TeleporterMessengerCompatible: reentrant send");
        _sending = true;
        _;
        _sending = false;
    }

    /// A message being executed must not deliver another one.
    modifier oneReceiveAtATime() {
        require(!_receiving, "TeleporterMessengerCompatible: reentrant receive");
        _receiving = true;
        _;
        _receiving = false;
    }

    function sendCrossChainMessage(TeleporterMessageInput calldata messageInput)
        external
        oneSendAtATime
        returns (bytes32)
    {
        return _send(messageInput, _takeReceipts(messageInput.destinationBlockchainID));
    }

    /// Emits a message sent earlier (and not yet acknowledged) once more, byte for byte.
    function retrySendCrossChainMessage(TeleporterMessage calldata message) external oneSendAtATime {
        bytes32 messageID = calculateMessageID(blockchainID, message.destinationBlockchainID, message.messageNonce);
        SentMessageInfo memory sent = sentMessageInfo[messageID];
        require(sent.messageHash != bytes32(0), "TeleporterMessengerCompatible: message not found");
        bytes memory encoded = abi.encode(message);
        require(keccak256(encoded) == sent.messageHash, "TeleporterMessengerCompatible: not the message sent");
        emit SendCrossChainMessage(messageID, message.destinationBlockchainID, message, sent.feeInfo);
        WARP_MESSENGER.sendWarpMessage(encoded);
    }

    /// Delivers the Warp message carried as predicate `messageIndex` of this transaction.
    function receiveCrossChainMessage(uint32 messageIndex, address relayerRewardAddress) external oneReceiveAtATime {
        (WarpMessage memory warpMessage, bool valid) = WARP_MESSENGER.getVerifiedWarpMessage(messageIndex);
        require(valid, "TeleporterMessengerCompatible: invalid warp message");
        // Only a messenger at this same address on the source chain (the same code, deployed the
        // same way) is trusted to have built the message and its nonce.
        require(
            warpMessage.originSenderAddress == address(this), "TeleporterMessengerCompatible: origin is not this messenger"
        );
        TeleporterMessage memory message = abi.decode(warpMessage.payload, (TeleporterMessage));
        bytes32 here = initializeBlockchainID();
        require(message.destinationBlockchainID == here, "TeleporterMessengerCompatible: not for this chain");
        require(message.messageNonce != 0, "TeleporterMessengerCompatible: zero message nonce");

        bytes32 messageID = calculateMessageID(warpMessage.sourceChainID, here, message.messageNonce);
        require(_receivedNonces[messageID] == 0, "TeleporterMessengerCompatible: message already received");
        require(
            _isAllowedRelayer(msg.sender, message.allowedRelayerAddresses),
            "TeleporterMessengerCompatible: unauthorized relayer"
        );

        // Received before anything runs, so a failing or reentering receiver cannot deliver it twice.
        _receivedNonces[messageID] = message.messageNonce;
        if (relayerRewardAddress != address(0)) {
            _relayerRewardAddresses[messageID] = relayerRewardAddress;
        }
        for (uint256 i = 0; i < message.receipts.length; ++i) {
            _acknowledge(here, warpMessage.sourceChainID, message.receipts[i]);
        }
        ReceiptQueue storage owed = receiptQueues[warpMessage.sourceChainID];
        owed.items[owed.last++] = TeleporterMessageReceipt(message.messageNonce, relayerRewardAddress);

        emit ReceiveCrossChainMessage(messageID, warpMessage.sourceChainID, msg.sender, relayerRewardAddress, message);

        if (message.message.length > 0) {
            _execute(messageID, warpMessage.sourceChainID, message);
        }
    }

    /// Runs a received message whose execution failed once more, with all the gas left.
    function retryMessageExecution(bytes32 sourceBlockchainID, TeleporterMessage calldata message)
        external
        oneReceiveAtATime
    {
        bytes32 messageID = calculateMessageID(sourceBlockchainID, blockchainID, message.messageNonce);
        bytes32 failedHash = receivedFailedMessageHashes[messageID];
        require(failedHash != bytes32(0), "TeleporterMessengerCompatible: message not found");
        require(keccak256(abi.encode(message)) == failedHash, "TeleporterMessengerCompatible: not the message received");
        require(message.destinationAddress.code.length > 0, "TeleporterMessengerCompatible: destination has no code");
        delete receivedFailedMessageHashes[messageID];
        emit MessageExecuted(messageID, sourceBlockchainID);
        bool ok = _call(
            message.destinationAddress,
            gasleft(),
            _receiverCall(sourceBlockchainID, message.originSenderAddress, message.message)
        );
        require(ok, "TeleporterMessengerCompatible: retried execution failed");
    }

    function messageReceived(bytes32 messageID) external view returns (bool) {
        return _receivedNonces[messageID] != 0;
    }

    function getRelayerRewardAddress(bytes32 messageID) external view returns (address) {
        require(_receivedNonces[messageID] != 0, "TeleporterMessengerCompatible: message not received");
        return _relayerRewardAddresses[messageID];
    }

    function getMessageHash(bytes32 messageID) external view returns (bytes32) {
        return sentMessageInfo[messageID].messageHash;
    }

    function getFeeInfo(bytes32 messageID) external view returns (address, uint256) {
        TeleporterFeeInfo memory fee = sentMessageInfo[messageID].feeInfo;
        return (fee.feeTokenAddress, fee.amount);
    }

    function getNextMessageID(bytes32 destinationBlockchainID) external view returns (bytes32) {
        require(blockchainID != bytes32(0), "TeleporterMessengerCompatible: zero blockchain ID");
        return calculateMessageID(blockchainID, destinationBlockchainID, messageNonce + 1);
    }

    function getReceiptQueueSize(bytes32 sourceBlockchainID) external view returns (uint256) {
        ReceiptQueue storage queue = receiptQueues[sourceBlockchainID];
        return queue.last - queue.first;
    }

    function getReceiptAtIndex(bytes32 sourceBlockchainID, uint256 index)
        external
        view
        returns (TeleporterMessageReceipt memory)
    {
        ReceiptQueue storage queue = receiptQueues[sourceBlockchainID];
        require(index < queue.last - queue.first, "TeleporterMessengerCompatible: receipt index out of bounds");
        return queue.items[queue.first + index];
    }

    /// This chain's blockchain ID, read from the Warp precompile the first time.
    function initializeBlockchainID() public returns (bytes32) {
        bytes32 id = blockchainID;
        if (id == bytes32(0)) {
            id = WARP_MESSENGER.getBlockchainID();
            require(id != bytes32(0), "TeleporterMessengerCompatible: zero blockchain ID");
            blockchainID = id;
            emit BlockchainIDInitialized(id);
        }
        return id;
    }

    /// Teleporter v1's message ID: unique per messenger address, source, destination and nonce.
    function calculateMessageID(bytes32 sourceBlockchainID, bytes32 destinationBlockchainID, uint256 nonce)
        public
        view
        returns (bytes32)
    {
        return keccak256(abi.encode(address(this), sourceBlockchainID, destinationBlockchainID, nonce));
    }

    function _send(TeleporterMessageInput calldata input, TeleporterMessageReceipt[] memory receipts)
        private
        returns (bytes32 messageID)
    {
        require(input.feeInfo.amount == 0, "TeleporterMessengerCompatible: fees are not supported");
        bytes32 here = initializeBlockchainID();
        uint256 nonce = ++messageNonce;
        messageID = calculateMessageID(here, input.destinationBlockchainID, nonce);
        TeleporterMessage memory message = TeleporterMessage({
            messageNonce: nonce,
            originSenderAddress: msg.sender,
            destinationBlockchainID: input.destinationBlockchainID,
            destinationAddress: input.destinationAddress,
            requiredGasLimit: input.requiredGasLimit,
            allowedRelayerAddresses: input.allowedRelayerAddresses,
            receipts: receipts,
            message: input.message
        });
        bytes memory encoded = abi.encode(message);
        sentMessageInfo[messageID] = SentMessageInfo(keccak256(encoded), input.feeInfo);
        emit SendCrossChainMessage(messageID, input.destinationBlockchainID, message, input.feeInfo);
        WARP_MESSENGER.sendWarpMessage(encoded);
    }

    /// Takes up to MAX_RECEIPTS_PER_MESSAGE receipts owed to `chain`, oldest first.
    function _takeReceipts(bytes32 chain) private returns (TeleporterMessageReceipt[] memory receipts) {
        ReceiptQueue storage queue = receiptQueues[chain];
        uint256 count = queue.last - queue.first;
        if (count > MAX_RECEIPTS_PER_MESSAGE) count = MAX_RECEIPTS_PER_MESSAGE;
        receipts = new TeleporterMessageReceipt[](count);
        for (uint256 i = 0; i < count; ++i) {
            receipts[i] = queue.items[queue.first];
            delete queue.items[queue.first];
            queue.first++;
        }
    }

    /// A receipt from `otherChain` says a message we sent there was delivered: forget it.
    function _acknowledge(bytes32 here, bytes32 otherChain, TeleporterMessageReceipt memory receipt) private {
        bytes32 messageID = calculateMessageID(here, otherChain, receipt.receivedMessageNonce);
        SentMessageInfo memory sent = sentMessageInfo[messageID];
        // Already acknowledged (receipts may arrive twice), or never ours: nothing to do.
        if (sent.messageHash == bytes32(0)) return;
        delete sentMessageInfo[messageID];
        emit ReceiptReceived(messageID, otherChain, receipt.relayerRewardAddress, sent.feeInfo);
    }

    /// Calls the receiver with exactly the message's requiredGasLimit. Its failure is recorded,
    /// not propagated: the relayer paid the gas asked for, so the message counts as delivered.
    function _execute(bytes32 messageID, bytes32 sourceBlockchainID, TeleporterMessage memory message) private {
        require(gasleft() >= message.requiredGasLimit, "TeleporterMessengerCompatible: insufficient gas");
        bool ok = message.destinationAddress.code.length > 0
            && _call(
                message.destinationAddress,
                message.requiredGasLimit,
                _receiverCall(sourceBlockchainID, message.originSenderAddress, message.message)
            );
        if (!ok) {
            receivedFailedMessageHashes[messageID] = keccak256(abi.encode(message));
            emit MessageExecutionFailed(messageID, sourceBlockchainID, message);
            return;
        }
        emit MessageExecuted(messageID, sourceBlockchainID);
    }

    function _receiverCall(bytes32 sourceBlockchainID, address originSender, bytes memory payload)
        private
        pure
        returns (bytes memory)
    {
        return abi.encodeCall(ITeleporterReceiver.receiveTeleporterMessage, (sourceBlockchainID, originSender, payload));
    }

    /// A call that copies no return data, so a receiver cannot make us pay for a huge one.
    function _call(address target, uint256 gasLimit, bytes memory data) private returns (bool ok) {
        assembly {
            ok := call(gasLimit, target, 0, add(data, 0x20), mload(data), 0, 0)
        }
    }

    function _isAllowedRelayer(address deliverer, address[] memory allowed) private pure returns (bool) {
        if (allowed.length == 0) return true; // anyone may deliver
        for (uint256 i = 0; i < allowed.length; ++i) {
            if (allowed[i] == deliverer) return true;
        }
        return false;
    }
}
