// What a signed message costs the chain that verifies it: the Warp precompile's predicate gas,
// charged per transaction that carries the message in its access list. From avalanchego
// graft/subnet-evm/precompile/contracts/warp/config.go PredicateGas (graft/coreth has the same):
//   VerifyPredicateBase + PerWarpMessageChunk × chunks + PerWarpSigner × signers,
// where chunks is the predicate's length in 32-byte words: the signed message, a 0xff delimiter,
// zero padding (vms/evm/predicate/predicate.go New: len/32 + 1). The constants are
// graft/subnet-evm/precompile/contracts/warp/contract.go's preGraniteGasConfig and
// graniteGasConfig (the same in graft/coreth/precompile/contracts/warp/contract.go).

interface WarpGasConfig {
  verifyPredicateBase: number;
  perWarpMessageChunk: number;
  perWarpSigner: number;
}

const GRANITE: WarpGasConfig = { verifyPredicateBase: 125_000, perWarpMessageChunk: 512, perWarpSigner: 250 };
const PRE_GRANITE: WarpGasConfig = { verifyPredicateBase: 200_000, perWarpMessageChunk: 3_200, perWarpSigner: 500 };

export interface DestinationGas {
  granite: number;
  preGranite: number;
}

function predicateGas(config: WarpGasConfig, signedMessageBytes: number, signers: number): number {
  const chunks = Math.floor(signedMessageBytes / 32) + 1;
  return config.verifyPredicateBase + config.perWarpMessageChunk * chunks + config.perWarpSigner * signers;
}

/** The predicate gas of a signed message of this many bytes and signers, under Granite's and the earlier schedule. */
export function destinationGas(signedMessageBytes: number, signers: number): DestinationGas {
  return { granite: predicateGas(GRANITE, signedMessageBytes, signers), preGranite: predicateGas(PRE_GRANITE, signedMessageBytes, signers) };
}
