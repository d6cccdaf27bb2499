// The P-Chain's ACP-118 verifier (vms/platformvm/network/warp.go signatureRequestVerifier), for
// the simulated avalanchego node: the L1 messages the P-Chain's state makes true are signed, and
// everything else is refused with the code avalanchego gives, in its order of checks. The state
// is read through a PChainReader; the devnet's reads its simulated P-Chain node over JSON-RPC
// (the same node and the same reads as warpgate signers' policy, via src/l1 and src/node).
//
//   1  payload is not an AddressedCall            9  SubnetIDIndex.subnet_id is not 32 bytes
//   2  AddressedCall has a source address        10  the justification gives another validation ID
//   3  its payload is not an L1 message          11  no such L1 validator (registered / weight)
//   4  an L1 message the P-Chain does not sign   12  the validator exists (unregistration)
//   5  justification unparseable                 13  the RegisterL1Validator justification is not one
//   6  the subnet was not converted              14  the registration could still happen
//   7  another conversionID                      15  nonce 2^64-1
//   8  the justification has no preimage         16  wrong nonce      17  wrong weight
//   0  (ErrUndefined) the state could not be read
//
// One difference: avalanchego also signs an unregistration whose expiry has not passed when its
// expiry index shows the validation ID was registered and then removed. The devnet's history
// removes no validator, so that index is always empty here and the answer is the same.
import { sha256 } from '@noble/hashes/sha2.js';
import { L1RequestError } from '../../l1/errors.js';
import { conversionIdOfSubnet } from '../../l1/justification.js';
import { UnknownL1ValidatorError } from '../../node/errors.js';
import type { PChainClient } from '../../node/pchain.js';
import { idToString } from '../../warp/cb58.js';
import { WarpFormatError } from '../../warp/errors.js';
import { bytesEqual } from '../../warp/hex.js';
import { decodeL1ValidatorRegistrationJustification } from '../../warp/justification.js';
import { parseL1Message, validationIdFromIndex, type L1Message } from '../../warp/l1-messages.js';
import { parsePayload } from '../../warp/payload.js';
import type { WarpVerifier } from './warp-verifiers.js';

/** The P-Chain state the verifier reads. */
export interface PChainReader {
  /** The subnet's conversionID; undefined when it was never converted (or does not exist). */
  conversionIdOf(subnetId: Uint8Array): Promise<Uint8Array | undefined>;
  /** An L1 validator's current weight and minNonce; undefined when there is none. */
  l1Validator(validationId: Uint8Array): Promise<{ weight: bigint; minNonce: bigint } | undefined>;
  /** The P-Chain's time, Unix seconds. */
  timestamp(): Promise<bigint>;
}

const MAX_UINT64 = (1n << 64n) - 1n;

type Verdict = { code: number; message: string } | null;

/** Thrown inside a check: the AppError to answer with. */
class Refuse extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const reason = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** A reader over a P-Chain JSON-RPC client (the devnet's simulated node, or any node). */
export function rpcPChainReader(pchain: PChainClient): PChainReader {
  return {
    async conversionIdOf(subnetId) {
      try {
        return await conversionIdOfSubnet(pchain, subnetId);
      } catch (err) {
        if (err instanceof L1RequestError && (err.kind === 'not-found' || err.kind === 'not-converted')) return undefined;
        throw err;
      }
    },
    async l1Validator(validationId) {
      try {
        return await pchain.getL1Validator(validationId);
      } catch (err) {
        if (err instanceof UnknownL1ValidatorError) return undefined;
        throw err;
      }
    },
    timestamp: () => pchain.getTimestamp(),
  };
}

export function pchainWarpVerifier(state: PChainReader): WarpVerifier {
  /** A state read; a failure is avalanchego's ErrUndefined (code 0). */
  const read = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      throw new Refuse(0, `failed to get ${what}: ${reason(err)}`);
    }
  };

  const conversion = async (subnetId: Uint8Array): Promise<Uint8Array> => {
    const id = await read('subnet conversionID', () => state.conversionIdOf(subnetId));
    if (!id) throw new Refuse(6, `subnet "${idToString(subnetId)}" has not been converted`);
    return id;
  };

  const mustNotExist = async (validationId: Uint8Array): Promise<void> => {
    if (await read('L1 validator', () => state.l1Validator(validationId))) throw new Refuse(12, `validation "${idToString(validationId)}" exists`);
  };

  const registration = async (validationId: Uint8Array, registered: boolean, justification: Uint8Array): Promise<void> => {
    if (registered) {
      if (!(await read('L1 validator', () => state.l1Validator(validationId)))) throw new Refuse(11, `validation "${idToString(validationId)}" does not exist`);
      return;
    }
    let preimage;
    try {
      preimage = decodeL1ValidatorRegistrationJustification(justification);
    } catch (err) {
      const what = err instanceof WarpFormatError ? err.what : '';
      if (what.endsWith('.preimage')) throw new Refuse(8, `invalid justification type: ${reason(err)}`);
      if (what.endsWith('.subnet_id')) throw new Refuse(9, `failed to parse subnetID: ${reason(err)}`);
      throw new Refuse(5, `failed to parse justification: ${reason(err)}`);
    }
    if (preimage.type === 'SubnetIdIndex') {
      const fromJustification = validationIdFromIndex(preimage.subnetId, preimage.index);
      if (!bytesEqual(fromJustification, validationId)) throw new Refuse(10, `validationID "${idToString(validationId)}" != justificationID "${idToString(fromJustification)}"`);
      await conversion(preimage.subnetId);
      await mustNotExist(validationId);
      return;
    }
    let register;
    try {
      register = parseL1Message(preimage.message);
      if (register.type !== 'RegisterL1Validator') throw new Error(`it is a ${register.type}`);
    } catch (err) {
      throw new Refuse(13, `failed to parse RegisterL1Validator justification: ${reason(err)}`);
    }
    const fromJustification = sha256(preimage.message);
    if (!bytesEqual(fromJustification, validationId)) throw new Refuse(10, `validationID "${idToString(validationId)}" != justificationID "${idToString(fromJustification)}"`);
    await mustNotExist(validationId);
    if (register.expiry <= (await read('P-Chain time', () => state.timestamp()))) return;
    throw new Refuse(14, `validation "${idToString(validationId)}" can be registered until ${register.expiry}`);
  };

  const weight = async (validationId: Uint8Array, nonce: bigint, w: bigint): Promise<void> => {
    if (nonce === MAX_UINT64) throw new Refuse(15, 'impossible nonce');
    const current = await read('L1 validator', () => state.l1Validator(validationId));
    if (!current) throw new Refuse(11, `validation "${idToString(validationId)}" does not exist`);
    if (nonce + 1n !== current.minNonce) throw new Refuse(16, `provided nonce ${nonce} != expected nonce (${current.minNonce} - 1)`);
    if (w !== current.weight) throw new Refuse(17, `provided weight ${w} != expected weight ${current.weight}`);
  };

  const check = async (msg: L1Message, justification: Uint8Array): Promise<void> => {
    switch (msg.type) {
      case 'SubnetToL1Conversion': {
        if (justification.length !== 32) throw new Refuse(5, `failed to parse justification: expected 32 bytes but got ${justification.length} bytes`);
        const actual = await conversion(justification);
        if (!bytesEqual(actual, msg.conversionId)) throw new Refuse(7, `provided conversionID "${idToString(msg.conversionId)}" != expected conversionID "${idToString(actual)}"`);
        return;
      }
      case 'L1ValidatorRegistration':
        return registration(msg.validationId, msg.registered, justification);
      case 'L1ValidatorWeight':
        return weight(msg.validationId, msg.nonce, msg.weight);
      default:
        throw new Refuse(4, `unsupported warp addressed call payload type: *message.${msg.type}`);
    }
  };

  return async (message, justification): Promise<Verdict> => {
    let payload;
    try {
      payload = parsePayload(message.payload);
      if (payload.type !== 'AddressedCall') throw new Error(`a ${payload.type} payload is not an AddressedCall`);
    } catch (err) {
      return { code: 1, message: `failed to parse warp addressed call: ${reason(err)}` };
    }
    if (payload.sourceAddress.length !== 0) return { code: 2, message: 'source address should be empty' };
    let msg: L1Message;
    try {
      msg = parseL1Message(payload.payload);
    } catch (err) {
      return { code: 3, message: `failed to parse warp addressed call payload: ${reason(err)}` };
    }
    try {
      await check(msg, justification);
      return null;
    } catch (err) {
      if (err instanceof Refuse) return { code: err.code, message: err.message };
      throw err;
    }
  };
}
