// The aggregation requests P-Chain L1 messages become (l1/messages.ts builds the messages from
// the node's P-Chain): for GET …/aggregateSignatures/{txHash}, and for a POST whose justification
// alone determines the message.
import type { AggregationRequest } from '../aggregator/aggregator.js';
import { messageOfJustification, messageOfTransaction, type PChainL1Message } from '../l1/messages.js';
import type { PChainClient } from '../node/pchain.js';
import { untilAborted } from '../util/abortable.js';
import { newPChainMessage } from '../warp/l1-messages.js';
import type { L1MessageBuilder } from '../server/routes/aggregation.js';
import type { QuorumOptions } from '../server/quorum-options.js';

function request(built: PChainL1Message, networkId: number, options: QuorumOptions): AggregationRequest {
  return {
    message: newPChainMessage(networkId, built.l1),
    justification: built.justification,
    signingSubnetId: options.signingSubnetId ?? built.subnetId,
    quorumPercentage: options.quorumPercentage,
    quorumPercentageBuffer: options.quorumPercentageBuffer,
    pChainHeight: options.pChainHeight,
    ...(options.destinationBlockchainId ? { destinationBlockchainId: options.destinationBlockchainId } : {}),
  };
}

/** P-Chain L1 messages for the service's routes, read from its node. */
export function l1MessageBuilder(deps: { pchain: PChainClient; nodeNetworkId: () => Promise<number> }): L1MessageBuilder {
  const { pchain, nodeNetworkId } = deps;
  return {
    async fromTransaction(txId, pathNetworkId, options, opts = {}) {
      const built = await messageOfTransaction(pchain, txId, { signal: opts.signal, signingSubnetId: options.signingSubnetId });
      return request(built, built.networkId ?? pathNetworkId, options);
    },

    async fromJustification(justification, options, networkId, opts = {}) {
      const built = await messageOfJustification(pchain, justification, opts);
      if (!built) return null;
      // The node's network ID is asked once and shared: this request only stops waiting for it.
      return request(built, networkId ?? (await untilAborted(nodeNetworkId(), opts.signal)), options);
    },
  };
}
