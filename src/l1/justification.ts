// The ACP-77 justification rules both sides of a P-Chain L1 message apply: the service builds the
// message a justification determines, the signer checks that the P-Chain makes it true
// (protocol.md section 6).
//
//   a 32-byte justification                     the subnet ID of a SubnetToL1Conversion
//   L1ValidatorRegistrationJustification
//     SubnetIDIndex(subnet, index)              validationID = sha256(subnet ‖ index), L1 = subnet
//     RegisterL1ValidatorMessage(bytes)         validationID = sha256(bytes), L1 = its subnetID;
//                                               bytes must be a RegisterL1Validator
import { sha256 } from '@noble/hashes/sha2.js';
import { UnknownSubnetError } from '../node/errors.js';
import type { PChainClient } from '../node/pchain.js';
import type { CallOptions } from '../node/transport.js';
import { idToString } from '../warp/cb58.js';
import { WarpFormatError } from '../warp/errors.js';
import { decodeL1ValidatorRegistrationJustification } from '../warp/justification.js';
import { parseL1Message, validationIdFromIndex, type RegisterL1Validator } from '../warp/l1-messages.js';
import { L1RequestError } from './errors.js';

/** What an L1ValidatorRegistrationJustification says: the validation ID it determines and its L1. */
export type RegistrationJustification =
  | { kind: 'subnet-index'; validationId: Uint8Array; subnetId: Uint8Array; index: number }
  | { kind: 'register-message'; validationId: Uint8Array; subnetId: Uint8Array; register: RegisterL1Validator };

/**
 * Reads an L1ValidatorRegistrationJustification. Throws WarpFormatError when the bytes are not
 * one, and L1RequestError('bad-justification') when its message is not a RegisterL1Validator.
 */
export function readRegistrationJustification(justification: Uint8Array): RegistrationJustification {
  const preimage = decodeL1ValidatorRegistrationJustification(justification);
  if (preimage.type === 'SubnetIdIndex') {
    const { subnetId, index } = preimage;
    return { kind: 'subnet-index', validationId: validationIdFromIndex(subnetId, index), subnetId, index };
  }
  let register;
  try {
    register = parseL1Message(preimage.message);
  } catch (err) {
    if (err instanceof WarpFormatError) throw new L1RequestError('bad-justification', `register_l1_validator_message is not an L1 message: ${err.message}`, 'justification');
    throw err;
  }
  if (register.type !== 'RegisterL1Validator') {
    throw new L1RequestError('bad-justification', `register_l1_validator_message is a ${register.type}, not a RegisterL1Validator`, 'justification');
  }
  // validationID of a registration = sha256 of its RegisterL1Validator payload bytes.
  return { kind: 'register-message', validationId: sha256(preimage.message), subnetId: register.subnetId, register };
}

/**
 * The subnet's conversionID (platform.getSubnet). Throws L1RequestError 'not-found' for a subnet
 * the P-Chain does not know and 'not-converted' for one never converted to an L1.
 */
export async function conversionIdOfSubnet(pchain: Pick<PChainClient, 'getSubnet'>, subnetId: Uint8Array, opts: CallOptions = {}): Promise<Uint8Array> {
  let conversionId: Uint8Array;
  try {
    ({ conversionId } = await pchain.getSubnet(subnetId, opts));
  } catch (err) {
    if (err instanceof UnknownSubnetError) throw new L1RequestError('not-found', err.message);
    throw err;
  }
  if (conversionId.every((b) => b === 0)) throw new L1RequestError('not-converted', `subnet ${idToString(subnetId)} has not been converted to an L1`);
  return conversionId;
}
