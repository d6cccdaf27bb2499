// The simulated node's P-Chain verifier against the devnet's P-Chain state: the L1 messages the
// state makes true are signed (null), everything else gets the code avalanchego's
// vms/platformvm/network/warp.go gives, in its order of checks.
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { buildGenesis, timeAtHeight } from '../../../src/devnet/genesis/index.js';
import { PChainState } from '../../../src/devnet/pchain/state.js';
import { pchainWarpVerifier, type PChainReader } from '../../../src/devnet/avalanchego-node/pchain-verifier.js';
import { encodeL1ValidatorRegistrationJustification } from '../../../src/warp/justification.js';
import { encodeL1Message, newPChainMessage, validationIdFromIndex, type L1Message } from '../../../src/warp/l1-messages.js';
import { encodeAddressedCall, encodeHashPayload } from '../../../src/warp/payload.js';
import { newUnsignedMessage } from '../../../src/warp/unsigned-message.js';
import { P_CHAIN_ID } from '../../../src/warp/cb58.js';

const genesis = buildGenesis({ validators: 5, seed: 'pchain-verifier-test' });
const state = new PChainState(genesis);
const now = timeAtHeight(genesis.currentHeight);

/** The devnet's P-Chain state, read in memory. */
const reader: PChainReader = {
  conversionIdOf: async (subnetId) => state.conversionIdOf(subnetId),
  l1Validator: async (validationId) => state.view().currentWeightAndNonce(validationId),
  timestamp: async () => now,
};
const verify = pchainWarpVerifier(reader);
const codeOf = async (message: L1Message | Uint8Array, justification: Uint8Array = new Uint8Array()): Promise<number | null> => {
  const unsigned = message instanceof Uint8Array ? newUnsignedMessage(genesis.networkId, P_CHAIN_ID, message) : newPChainMessage(genesis.networkId, message);
  return (await verify(unsigned, justification))?.code ?? null;
};

const { subnetId, conversion, registration, weightChange } = genesis;
const register = registration.payload;
const existing = conversion.data.validators.length > 0 ? validationIdFromIndex(subnetId, 0) : registration.validationId;
const unknownId = sha256(new TextEncoder().encode('never a validator'));
const byIndex = (index: number, subnet = subnetId): Uint8Array => encodeL1ValidatorRegistrationJustification({ type: 'SubnetIdIndex', subnetId: subnet, index });
const byMessage = (bytes: Uint8Array): Uint8Array => encodeL1ValidatorRegistrationJustification({ type: 'RegisterL1ValidatorMessage', message: bytes });

describe('the P-Chain verifier (vms/platformvm/network/warp.go)', () => {
  it('refuses what is not an empty-address AddressedCall of an L1 message the P-Chain signs: codes 1 to 4', async () => {
    expect(await codeOf(encodeHashPayload(new Uint8Array(32)))).toBe(1);
    expect(await codeOf(encodeAddressedCall(new Uint8Array(20).fill(1), encodeL1Message({ type: 'SubnetToL1Conversion', conversionId: conversion.conversionId })))).toBe(2);
    expect(await codeOf(encodeAddressedCall(new Uint8Array(), Uint8Array.of(0, 0, 0, 0, 0, 9)))).toBe(3);
    expect(await codeOf(register)).toBe(4);
  });

  it('signs the subnet’s conversion and refuses a bad justification (5), an unconverted subnet (6) and another conversionID (7)', async () => {
    const msg: L1Message = { type: 'SubnetToL1Conversion', conversionId: conversion.conversionId };
    expect(await codeOf(msg, subnetId)).toBeNull();
    expect(await codeOf(msg, subnetId.subarray(1))).toBe(5);
    expect(await codeOf(msg, unknownId)).toBe(6);
    expect(await codeOf({ type: 'SubnetToL1Conversion', conversionId: unknownId }, subnetId)).toBe(7);
  });

  it('registered: signs an existing validator, refuses an unknown one (11)', async () => {
    expect(await codeOf({ type: 'L1ValidatorRegistration', validationId: existing, registered: true })).toBeNull();
    expect(await codeOf({ type: 'L1ValidatorRegistration', validationId: unknownId, registered: true })).toBe(11);
  });

  it('not registered, by SubnetIDIndex: signs an index never used; refuses 5, 8, 9, 10, 6 and 12 in avalanchego’s order', async () => {
    const unused = conversion.data.validators.length + 7;
    const notRegistered = (validationId: Uint8Array): L1Message => ({ type: 'L1ValidatorRegistration', validationId, registered: false });
    expect(await codeOf(notRegistered(validationIdFromIndex(subnetId, unused)), byIndex(unused))).toBeNull();
    expect(await codeOf(notRegistered(unknownId), Uint8Array.of(0xff))).toBe(5);
    expect(await codeOf(notRegistered(unknownId), new Uint8Array())).toBe(8);
    // SubnetIDIndex{subnet_id: 31 bytes}: field 1 (len 33) holding field 1 (len 31).
    expect(await codeOf(notRegistered(unknownId), Uint8Array.of(0x0a, 33, 0x0a, 31, ...new Uint8Array(31)))).toBe(9);
    expect(await codeOf(notRegistered(unknownId), byIndex(unused))).toBe(10);
    expect(await codeOf(notRegistered(validationIdFromIndex(unknownId, 0)), byIndex(0, unknownId))).toBe(6);
    expect(await codeOf(notRegistered(existing), byIndex(0))).toBe(12);
  });

  it('not registered, by RegisterL1Validator message: signs once its expiry has passed; refuses 13, 10, 12 and 14', async () => {
    const message = (expiry: bigint): Uint8Array => encodeL1Message({ ...register, expiry });
    const expired = message(now - 1n);
    const pending = message(now + 3600n);
    const notRegistered = (bytes: Uint8Array): L1Message => ({ type: 'L1ValidatorRegistration', validationId: sha256(bytes), registered: false });
    expect(await codeOf(notRegistered(expired), byMessage(expired))).toBeNull();
    expect(await codeOf(notRegistered(expired), byMessage(Uint8Array.of(1, 2, 3)))).toBe(13);
    expect(await codeOf({ type: 'L1ValidatorRegistration', validationId: unknownId, registered: false }, byMessage(expired))).toBe(10);
    // The featured registration's own message: its validator exists.
    const own = encodeL1Message(register);
    expect(await codeOf(notRegistered(own), byMessage(own))).toBe(12);
    expect(await codeOf(notRegistered(pending), byMessage(pending))).toBe(14);
  });

  it('weight: signs the current weight at the last nonce; refuses 15, 11, 16 and 17', async () => {
    const { validationId, nonce, weight } = weightChange;
    expect(await codeOf({ type: 'L1ValidatorWeight', validationId, nonce, weight })).toBeNull();
    expect(await codeOf({ type: 'L1ValidatorWeight', validationId, nonce: (1n << 64n) - 1n, weight })).toBe(15);
    expect(await codeOf({ type: 'L1ValidatorWeight', validationId: unknownId, nonce, weight })).toBe(11);
    expect(await codeOf({ type: 'L1ValidatorWeight', validationId, nonce: nonce - 1n, weight })).toBe(16);
    expect(await codeOf({ type: 'L1ValidatorWeight', validationId, nonce, weight: weight + 1n })).toBe(17);
  });

  it('a state it cannot read is code 0 (ErrUndefined), never a signature', async () => {
    const broken = pchainWarpVerifier({ ...reader, l1Validator: () => Promise.reject(new Error('node unreachable')) });
    const verdict = await broken(newPChainMessage(genesis.networkId, { type: 'L1ValidatorRegistration', validationId: existing, registered: true }), new Uint8Array());
    expect(verdict).toEqual({ code: 0, message: 'failed to get L1 validator: node unreachable' });
  });
});
