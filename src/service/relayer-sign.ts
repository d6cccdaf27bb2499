// The relayer's SignMessage (relayer/ports.ts) over the service's own aggregator, in process: a
// relayed message is signed the way its destination will verify it.
// - At the destination's epoch height: the aggregator reads the destination chain's current
//   epoch (validators/signing-height.ts) when it is named and no height is given.
// - With the destination's quorum: its WarpRules' quorumNumerator (0 in a chain config means 67).
// - By the set the destination checks against (avalanchego's predicate verification): a P-Chain
//   message always by the destination's own validators; a message from another Primary Network
//   chain (the C-Chain) by the destination L1's validators unless that L1 requires Primary
//   Network signers; any other message by its source subnet's validators.
import type { AggregationRequest, AggregationResult } from '../aggregator/aggregator.js';
import type { SignMessage } from '../relayer/ports.js';
import { untilAborted } from '../util/abortable.js';
import { idToString, parseCb58Id, PRIMARY_NETWORK_ID, P_CHAIN_ID } from '../warp/cb58.js';
import { bytesEqual, bytesTo0xHex, hexToBytes } from '../warp/hex.js';
import { parseUnsignedMessage } from '../warp/unsigned-message.js';

/** What the wiring needs of the aggregator and the validator sets. */
export interface SigningDeps {
  aggregate(req: AggregationRequest, opts: { deadlineMs?: number }): Promise<AggregationResult>;
  /** platform.validatedBy: the subnet that validates a chain (cached by the validator-set cache). */
  signingSubnetFor(chainId: Uint8Array, request?: { signal?: AbortSignal }): Promise<Uint8Array>;
  /** How long one signing may take (aggregation.deadlineMs). */
  deadlineMs: number;
  /** Each signing's route (`source->destination`), time and outcome, for the metrics. */
  observe?(route: string, ms: number, ok: boolean): void;
}

/** The quorum a destination verifies with: its numerator, 0 meaning avalanchego's default 67. */
function quorumOf(numerator: number): number {
  return numerator === 0 ? 67 : numerator;
}

/** The subnet whose validators must sign a message from `source` for `destination` to accept it. */
export async function signingSubnet(
  deps: Pick<SigningDeps, 'signingSubnetFor'>,
  source: Uint8Array,
  destination: Uint8Array,
  requirePrimaryNetworkSigners: boolean,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const destinationSubnet = (): Promise<Uint8Array> => deps.signingSubnetFor(destination, { signal });
  if (bytesEqual(source, P_CHAIN_ID)) return destinationSubnet();
  const sourceSubnet = await deps.signingSubnetFor(source, { signal });
  if (!bytesEqual(sourceSubnet, PRIMARY_NETWORK_ID) || requirePrimaryNetworkSigners) return sourceSubnet;
  return destinationSubnet();
}

export function createSignMessage(deps: SigningDeps): SignMessage {
  return async (unsignedMessage, destination, signal) => {
    const started = performance.now();
    const message = parseUnsignedMessage(hexToBytes(unsignedMessage, 'unsignedMessage'));
    const destinationId = parseCb58Id(destination.blockchainId, 'destination.blockchainId');
    const route = `${idToString(message.sourceChainId)}->${destination.blockchainId}`;
    try {
      const signingSubnetId = await untilAborted(signingSubnet(deps, message.sourceChainId, destinationId, destination.rules.requirePrimaryNetworkSigners, signal), signal);
      const result = await untilAborted(
        deps.aggregate(
          {
            message,
            justification: new Uint8Array(0),
            signingSubnetId,
            quorumPercentage: quorumOf(destination.rules.quorumNumerator),
            quorumPercentageBuffer: 0,
            // 0: the aggregator signs at the destination's epoch height (it names the destination).
            pChainHeight: 0,
            destinationBlockchainId: destinationId,
          },
          { deadlineMs: deps.deadlineMs },
        ),
        signal,
      );
      deps.observe?.(route, performance.now() - started, true);
      return { signedMessage: bytesTo0xHex(result.signedMessage) as `0x${string}`, signers: result.signers.length };
    } catch (err) {
      deps.observe?.(route, performance.now() - started, false);
      throw err;
    }
  };
}
