// The signing rules of avalanchego's ACP-118 verifiers, for the simulated node.
//
// EVM chains (graft/subnet-evm/warp/verifier_backend.go; coreth's is the same): a message the
// chain sent (found in its warp database) is signed; otherwise the payload is parsed (failure:
// ParseErrCode 1), a Hash payload must name an accepted block (VerifyErrCode 2), an
// AddressedCall must hold a known off-chain message (ValidatorUptime, else 1) with an empty
// source address (else 2) whose uptime the node can vouch for (else 2). The devnet runs no
// EVM, so every well-formed message from the chain's own ID on its own network counts as sent,
// and every Hash payload as naming an accepted block; anything else gets the code the real
// verifier would give a message it never sent. Like the real verifier (acp118.Verifier leaves
// NetworkID and SourceChainID to the signer), a block hash is vouched for whatever network and
// chain the message names: the node's signer then refuses another network or chain with -1.
//
// The P-Chain (vms/platformvm/network/warp.go) is passed in as a callback: the devnet wires it
// to its simulated P-Chain state.
import { parsePayload, type UnsignedMessage } from '../../warp/index.js';
import { bytesEqual } from '../../warp/hex.js';
import { EVM_VERIFIER_ERROR } from '../../p2p/index.js';

interface AppErrorLike {
  code: number;
  message: string;
}

/** null: sign it; otherwise the AppError the node answers. */
export type WarpVerifier = (message: UnsignedMessage, justification: Uint8Array) => AppErrorLike | null | Promise<AppErrorLike | null>;

/** graft/subnet-evm/warp/messages: codec version 0, type 0, ValidatorUptime{ID, u64}. */
const VALIDATOR_UPTIME_BYTES = 2 + 4 + 32 + 8;

function isValidatorUptime(bytes: Uint8Array): boolean {
  return bytes.length === VALIDATOR_UPTIME_BYTES && bytes.subarray(0, 6).every((b) => b === 0);
}

export function evmWarpVerifier(chainId: Uint8Array, networkId: number): WarpVerifier {
  return (message) => {
    let payload;
    try {
      payload = parsePayload(message.payload);
    } catch (err) {
      return { code: EVM_VERIFIER_ERROR.parse, message: `failed to parse payload: ${(err as Error).message}` };
    }
    if (message.networkId === networkId && bytesEqual(message.sourceChainId, chainId)) return null;
    if (payload.type === 'Hash') return null;
    if (!isValidatorUptime(payload.payload)) return { code: EVM_VERIFIER_ERROR.parse, message: 'failed to parse addressed call message' };
    if (payload.sourceAddress.length !== 0) return { code: EVM_VERIFIER_ERROR.verify, message: 'source address should be empty for offchain addressed messages' };
    return { code: EVM_VERIFIER_ERROR.verify, message: 'failed to get uptime: not found' };
  };
}
