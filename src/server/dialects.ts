// The two dialects of the aggregation endpoints: the Glacier / Data API one (camelCase, seed 000
// section 4.1, errors in the Data API shape) and icm-services' (kebab-case, errors as {error}).
// What differs between them is here: field names, the answer, the error body. Parsing, rules and
// the error mapping are shared.
import { bytesToHex } from '../warp/hex.js';
import { dataApiError } from '../proxy/error-shapes.js';

export interface FieldNames {
  message: string;
  justification: string;
  signingSubnetId: string;
  quorumPercentage: string;
  quorumPercentageBuffer: string;
  /** The first is the name messages about the height use. */
  pChainHeight: readonly [string, ...string[]];
  destinationBlockchainId: string;
  timeoutMs: string;
  /** icm-services reads an absent quorum as Go's zero value and treats 0 as the default 67. */
  zeroQuorumMeansDefault: boolean;
}

export interface Dialect {
  fields: FieldNames;
  /** The answer to a successful aggregation. */
  answer(signedMessage: Uint8Array): { status: number; body: unknown };
  /** An error answer's body, in this API's documented shape. */
  errorBody(status: number, message: string): unknown;
}

export const GLACIER: Dialect = {
  fields: {
    message: 'message',
    justification: 'justification',
    signingSubnetId: 'signingSubnetId',
    quorumPercentage: 'quorumPercentage',
    quorumPercentageBuffer: 'quorumPercentageBuffer',
    pChainHeight: ['pChainHeight'],
    destinationBlockchainId: 'destinationBlockchainId',
    timeoutMs: 'timeoutMs',
    zeroQuorumMeansDefault: false,
  },
  answer: (signed) => ({ status: 201, body: { signedMessage: bytesToHex(signed) } }),
  errorBody: (status, message) => dataApiError(status, message),
};

export const ICM: Dialect = {
  fields: {
    message: 'message',
    justification: 'justification',
    signingSubnetId: 'signing-subnet-id',
    quorumPercentage: 'quorum-percentage',
    quorumPercentageBuffer: 'quorum-percentage-buffer',
    // icm-services reads pchain-height; its README says p-chain-height. Accept both.
    pChainHeight: ['pchain-height', 'p-chain-height'],
    destinationBlockchainId: 'destination-blockchain-id',
    timeoutMs: 'timeout-ms',
    // Go clients of icm-services send "quorum-percentage": 0 when they mean the default.
    zeroQuorumMeansDefault: true,
  },
  answer: (signed) => ({ status: 200, body: { 'signed-message': bytesToHex(signed) } }),
  errorBody: (_status, message) => ({ error: message }),
};

/** icm-services' one endpoint. */
export const ICM_PATH = '/aggregate-signatures';

/** The relayer's manual relay API and message lookups (routes/relayer.ts): icm-services' relayer paths. */
const RELAY_PATHS = /^\/relay(\/|$)/;

/** The dialect a request's errors are answered in: icm-services' on its endpoints (the aggregator's and the relayer's), the Data API's anywhere else. */
export function dialectOfPath(path: string): Dialect {
  return path === ICM_PATH || RELAY_PATHS.test(path) ? ICM : GLACIER;
}
