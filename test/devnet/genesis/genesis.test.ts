import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it, vi } from 'vitest';
import { loadBackend, nobleBackend } from '../../../src/bls/index.js';
import { FAULT_MODES } from '../../../src/signer/faults.js';
import {
  buildGenesis,
  DevnetGenesisError,
  HEIGHTS,
  KEYLESS_NODE_ID,
  l1EntriesAt,
  WEIGHT_CHANGE_NONCE,
  type DevnetGenesis,
} from '../../../src/devnet/genesis/index.js';
import { proofOfPossession } from '../../../src/devnet/genesis/pop.js';
import { certificateDerFromPem, loadStakingIdentity, nodeIdBytesFromCertificate } from '../../../src/p2p/index.js';
import { shortIdOfPublicKey } from '../../../src/devnet/pchain/address.js';
import { PChainState } from '../../../src/devnet/pchain/state.js';
import { encodeUnsignedTx, signedTxJson, unsignedTxJson, type ConvertSubnetToL1Tx } from '../../../src/devnet/pchain/tx.js';
import { stringifyJson } from '../../../src/devnet/pchain/go-json.js';
import { canonicalSet } from '../../../src/validators/canonical-set.js';
import { verifySignedMessage } from '../../../src/validators/verify.js';
import {
  bytesToHex,
  cb58Decode,
  cb58Encode,
  conversionId,
  hexToBytes,
  parseL1Message,
  parsePayload,
  parseSignedMessage,
  validationIdFromIndex,
} from '../../../src/warp/index.js';

const TWO_POW_53 = 2n ** 53n;

// Built once per shape: a genesis is deterministic, so sharing it between tests is safe.
const small = buildGenesis({ validators: 6, seed: 'genesis-test' });
const withByzantine = buildGenesis({ validators: 20, seed: 'genesis-test', byzantine: 3 });

function registrationPayload(g: DevnetGenesis) {
  const signed = parseSignedMessage(g.registration.signedMessage);
  const call = parsePayload(signed.unsigned.payload);
  if (call.type !== 'AddressedCall') throw new Error('expected an AddressedCall');
  return { signed, call, message: parseL1Message(call.payload) };
}

describe('buildGenesis: reproducibility', () => {
  it('gives the same network for the same seed', () => {
    const again = buildGenesis({ validators: 6, seed: 'genesis-test' });
    expect(again.l1ConversionTxId).toBe(small.l1ConversionTxId);
    expect(again.validators.map((v) => [v.nodeId, bytesToHex(v.secretKey), v.weight])).toEqual(
      small.validators.map((v) => [v.nodeId, bytesToHex(v.secretKey), v.weight]),
    );
    expect(again.transactions.map((t) => t.id)).toEqual(small.transactions.map((t) => t.id));
    expect(bytesToHex(again.subnetId)).toBe(bytesToHex(small.subnetId));
  });

  it('gives an unrelated network for another seed', () => {
    const other = buildGenesis({ validators: 6, seed: 'another-seed' });
    expect(bytesToHex(other.subnetId)).not.toBe(bytesToHex(small.subnetId));
    expect(bytesToHex(other.blockchainId)).not.toBe(bytesToHex(small.blockchainId));
    expect(other.l1ConversionTxId).not.toBe(small.l1ConversionTxId);
    const keys = new Set(small.validators.map((v) => bytesToHex(v.secretKey)));
    expect(other.validators.some((v) => keys.has(bytesToHex(v.secretKey)))).toBe(false);
  });

  it('derives valid keys: every public key is the secret key’s, under both backends', () => {
    const noble = nobleBackend();
    for (const v of small.validators) {
      expect(bytesToHex(noble.publicKeyOf(noble.secretKeyFromBytes(v.secretKey)).bytes)).toBe(bytesToHex(v.publicKey));
    }
  });

  it('gives the validators that run as avalanchego nodes a staking certificate whose hash is their NodeID, the same for the same seed', () => {
    const odd = (i: number): boolean => i % 2 === 1;
    const g = buildGenesis({ validators: 6, seed: 'genesis-test', avalanchegoNodes: odd });
    const again = buildGenesis({ validators: 6, seed: 'genesis-test', avalanchegoNodes: odd });
    for (const v of g.validators) {
      if (!odd(v.index)) {
        expect(v.staking).toBeUndefined();
        // Untouched: the NodeID derived from the seed, as without avalanchego nodes.
        expect(v.nodeId).toBe(small.validators[v.index]!.nodeId);
        continue;
      }
      const identity = loadStakingIdentity(v.staking!.certPem, v.staking!.keyPem);
      expect(identity.nodeId).toBe(v.nodeId);
      expect(bytesToHex(nodeIdBytesFromCertificate(certificateDerFromPem(v.staking!.certPem)))).toBe(bytesToHex(v.nodeIdBytes));
      expect(again.validators[v.index]!.staking).toEqual(v.staking);
      // A certificate avalanchego accepts: ECDSA P-256 and within its rules.
      expect(identity.certificate.publicKey.asymmetricKeyType).toBe('ec');
    }
    // The P-Chain state knows them by those NodeIDs.
    const listed = new Set(l1EntriesAt(g.l1Validators, g.currentHeight).map((e) => e.nodeId));
    for (const v of g.validators) expect(listed.has(v.nodeId)).toBe(true);
  });

  it('refuses impossible sizes with the option named', () => {
    expect(() => buildGenesis({ validators: 1, seed: 's' })).toThrow(DevnetGenesisError);
    expect(() => buildGenesis({ validators: 1, seed: 's' })).toThrow(/--validators/);
    expect(() => buildGenesis({ validators: 2.5, seed: 's' })).toThrow(/--validators/);
    expect(() => buildGenesis({ validators: 5, seed: 's', networkId: 0 })).toThrow(/--network-id/);
  });

  it('builds a 1,000-validator genesis computing proofs of possession only for the validators in a transaction or the Primary Network', () => {
    // A proof costs ~20 ms (pure-JS BLS): computing one per validator would take 20 s, so the
    // genesis stays fast by computing few; counted rather than timed.
    const noble = nobleBackend();
    const proofs = vi.spyOn(noble, 'signProofOfPossession');
    try {
      const big = buildGenesis({ validators: 1000, seed: 'big-genesis-proofs', byzantine: 50 });
      expect(big.validators).toHaveLength(1000);
      expect(big.byzantine).toHaveLength(50);
      // The conversion's 10 active and 2 inactive validators, the featured registration, and the
      // Primary Network's 10 (the first of the conversion's, and the node itself, are shared).
      const inTransactions = new Set(
        [...big.conversion.data.validators.map((v) => v.nodeId), big.validators.at(-1)!.nodeIdBytes, ...big.primaryValidators.map((v) => v.nodeIdBytes)].map(
          (id) => bytesToHex(id),
        ),
      );
      expect(proofs.mock.calls.length).toBeGreaterThan(0);
      expect(proofs.mock.calls.length).toBeLessThanOrEqual(inTransactions.size);
      expect(inTransactions.size).toBeLessThan(30);
    } finally {
      proofs.mockRestore();
    }
  });
});

describe('buildGenesis: the validator set', () => {
  it('has N keyed validators with uneven weights, some heavy beyond 2^53', () => {
    expect(withByzantine.validators).toHaveLength(20);
    const weights = withByzantine.validators.map((v) => v.weight);
    const max = weights.reduce((a, b) => (a > b ? a : b));
    const min = weights.reduce((a, b) => (a < b ? a : b));
    expect(min).toBeGreaterThan(0n);
    expect(max / min).toBeGreaterThanOrEqual(5n);
    expect(new Set(weights.map(String)).size).toBe(weights.length);
    expect(weights.some((w) => w > TWO_POW_53)).toBe(true);
    const total = weights.reduce((a, b) => a + b, 0n) + withByzantine.keylessWeight;
    expect(withByzantine.totalWeight).toBe(total);
  });

  it('has one BLS key registered under two node IDs, merged in the canonical set', () => {
    const [a, b] = small.sharedKeyNodeIds!;
    const va = small.validators.find((v) => v.nodeId === a)!;
    const vb = small.validators.find((v) => v.nodeId === b)!;
    expect(a).not.toBe(b);
    expect(bytesToHex(va.publicKey)).toBe(bytesToHex(vb.publicKey));
    const set = canonicalSet(l1EntriesAt(small.l1Validators, small.currentHeight), loadBackend());
    expect(set.validators).toHaveLength(small.validators.length - 1);
    const merged = set.validators.find((v) => v.nodeIds.length === 2)!;
    expect([...merged.nodeIds].sort()).toEqual([a, b].sort());
    expect(merged.weight).toBe(va.weight + vb.weight);
    expect(set.totalWeight).toBe(small.totalWeight);
  });

  it('carries inactive validators as the keyless NodeID-111111111111111111116DBWJs entry', () => {
    const entries = l1EntriesAt(small.l1Validators, small.currentHeight);
    const keyless = entries.find((e) => e.nodeId === KEYLESS_NODE_ID)!;
    expect(keyless.publicKey).toBeNull();
    expect(keyless.weight).toBe(small.keylessWeight);
    expect(keyless.weight).toBeGreaterThan(0n);
    const inactive = small.l1Validators.filter((r) => r.balance === 0n);
    expect(inactive.length).toBeGreaterThan(0);
    expect(inactive.reduce((s, r) => s + r.weight, 0n)).toBe(small.keylessWeight);
    // N counts the signing node IDs; the inactive ones are extra and never sign.
    expect(entries.filter((e) => e.publicKey !== null)).toHaveLength(small.validators.length);
  });

  it('gives every validator the validation ID its transaction implies', () => {
    const tx = small.transactions[0]!.tx.unsigned as ConvertSubnetToL1Tx;
    tx.validators.forEach((v, i) => {
      const record = small.l1Validators.find((r) => bytesToHex(r.nodeIdBytes) === bytesToHex(v.nodeId))!;
      expect(bytesToHex(record.validationId)).toBe(bytesToHex(validationIdFromIndex(small.subnetId, i)));
    });
    const { message } = registrationPayload(small);
    const registered = small.validators.at(-1)!;
    expect(message.type).toBe('RegisterL1Validator');
    expect(bytesToHex(registered.validationId)).toBe(bytesToHex(small.registration.validationId));
    const { call } = registrationPayload(small);
    expect(bytesToHex(sha256(call.payload))).toBe(bytesToHex(registered.validationId));
  });

  it('has a history: older heights have other sets, none before the conversion', () => {
    const at = (h: number) => l1EntriesAt(small.l1Validators, h).map((e) => `${e.nodeId}:${e.weight}`).sort();
    expect(at(HEIGHTS.conversion - 1)).toEqual([]);
    const current = at(small.currentHeight);
    expect(at(HEIGHTS.conversion)).not.toEqual(current);
    expect(at(small.proposedHeight)).toEqual(current);
    const registered = small.validators.at(-1)!.nodeId;
    expect(at(HEIGHTS.registration - 1).some((e) => e.startsWith(`${registered}:`))).toBe(false);
    expect(at(HEIGHTS.registration).some((e) => e.startsWith(`${registered}:`))).toBe(true);
    const changed = small.l1Validators.find((r) => bytesToHex(r.validationId) === bytesToHex(small.weightChange.validationId))!;
    expect(changed.weightHistory).toHaveLength(2);
    expect(at(HEIGHTS.weightChange - 1)).toContain(`${changed.nodeId}:${changed.weightHistory[0]!.weight}`);
    expect(at(HEIGHTS.weightChange)).toContain(`${changed.nodeId}:${small.weightChange.weight}`);
  });

  it('has a Primary Network set with proofs of possession that verify', () => {
    const noble = nobleBackend();
    expect(small.primaryValidators.length).toBeGreaterThan(0);
    for (const v of small.primaryValidators.slice(0, 3)) {
      expect(noble.verifyProofOfPossession(noble.publicKeyFromBytes(v.publicKey), noble.signatureFromBytes(v.proofOfPossession))).toBe(true);
    }
  });
});

describe('buildGenesis: byzantine validators', () => {
  it('marks K validators with mixed fault modes and keeps honest weight above 80%', () => {
    expect(withByzantine.byzantine).toHaveLength(3);
    const faulty = withByzantine.validators.filter((v) => v.fault);
    expect(faulty.map((v) => v.nodeId)).toEqual(withByzantine.byzantine);
    expect(new Set(faulty.map((v) => v.fault)).size).toBe(3);
    for (const v of faulty) expect(FAULT_MODES).toContain(v.fault);
    expect(withByzantine.honestWeight * 100n).toBeGreaterThan(withByzantine.totalWeight * 80n);
    expect(withByzantine.honestWeight).toBe(withByzantine.validators.filter((v) => !v.fault).reduce((s, v) => s + v.weight, 0n));
  });

  it('chooses the lightest validators, never one of the shared-key pair', () => {
    const heaviestFaulty = withByzantine.validators.filter((v) => v.fault).reduce((m, v) => (v.weight > m ? v.weight : m), 0n);
    const shared = new Set(withByzantine.sharedKeyNodeIds);
    for (const v of withByzantine.validators) {
      if (!v.fault && !shared.has(v.nodeId)) expect(v.weight).toBeGreaterThan(heaviestFaulty);
      if (shared.has(v.nodeId)) expect(v.fault).toBeUndefined();
    }
  });

  it('cycles through all five fault modes', () => {
    const g = buildGenesis({ validators: 60, seed: 'genesis-test', byzantine: 7 });
    expect(new Set(g.validators.filter((v) => v.fault).map((v) => v.fault))).toEqual(new Set(FAULT_MODES));
  });

  it('refuses a K that would leave the honest validators at 80% or less, saying how many can misbehave', () => {
    let error: unknown;
    try {
      buildGenesis({ validators: 10, seed: 'genesis-test', byzantine: 8 });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DevnetGenesisError);
    expect((error as DevnetGenesisError).option).toBe('byzantine');
    expect((error as Error).message).toMatch(/more than 80%/);
    expect((error as Error).message).toMatch(/at most \d+ can misbehave/);
    expect(() => buildGenesis({ validators: 5, seed: 's', byzantine: 5 })).toThrow(/only \d+ validators can misbehave/);
    expect(() => buildGenesis({ validators: 5, seed: 's', byzantine: -1 })).toThrow(DevnetGenesisError);
  });
});

describe('buildGenesis: the P-Chain transactions', () => {
  it('commits to the conversionID that src/warp computes from the transaction', () => {
    const tx = small.transactions[0]!.tx.unsigned as ConvertSubnetToL1Tx;
    const fromTx = conversionId({
      subnetId: tx.subnetId,
      managerChainId: tx.chainId,
      managerAddress: tx.address,
      validators: tx.validators.map((v) => ({ nodeId: v.nodeId, blsPublicKey: v.publicKey, weight: v.weight })),
    });
    expect(bytesToHex(fromTx)).toBe(bytesToHex(small.conversion.conversionId));
    const sorted = [...tx.validators].sort((a, b) => Buffer.compare(a.nodeId, b.nodeId));
    expect(sorted.map((v) => bytesToHex(v.nodeId))).toEqual(tx.validators.map((v) => bytesToHex(v.nodeId)));
  });

  it('has a RegisterL1ValidatorTx whose message is a quorum-signed Warp message from the manager', () => {
    const { signed, call, message } = registrationPayload(small);
    expect(bytesToHex(signed.unsigned.sourceChainId)).toBe(bytesToHex(small.blockchainId));
    expect(bytesToHex(call.sourceAddress)).toBe(bytesToHex(small.managerAddress));
    if (message.type !== 'RegisterL1Validator') throw new Error('wrong payload');
    const registered = small.validators.at(-1)!;
    expect(bytesToHex(message.nodeId)).toBe(bytesToHex(registered.nodeIdBytes));
    expect(bytesToHex(message.blsPublicKey)).toBe(bytesToHex(registered.publicKey));
    const before = l1EntriesAt(small.l1Validators, HEIGHTS.registration - 1);
    // Verified under noble, the backend that did not sign it.
    const result = verifySignedMessage(small.registration.signedMessage, before, 67, small.networkId, nobleBackend());
    expect(result).toMatchObject({ valid: true });
  });

  it('has a SetL1ValidatorWeightTx whose validator now has that weight and minNonce n+1', () => {
    const signed = parseSignedMessage(small.weightChange.signedMessage);
    const call = parsePayload(signed.unsigned.payload);
    if (call.type !== 'AddressedCall') throw new Error('expected an AddressedCall');
    const message = parseL1Message(call.payload);
    if (message.type !== 'L1ValidatorWeight') throw new Error('wrong payload');
    expect(message.nonce).toBe(WEIGHT_CHANGE_NONCE);
    expect(message.weight).not.toBe(0n);
    expect(verifySignedMessage(signed, l1EntriesAt(small.l1Validators, HEIGHTS.weightChange - 1), 67, small.networkId)).toMatchObject({ valid: true });
    const view = new PChainState(small).view();
    expect(view.currentWeightAndNonce(message.validationId)).toEqual({ weight: message.weight, minNonce: message.nonce + 1n });
    const validator = small.validators.find((v) => bytesToHex(v.validationId) === bytesToHex(message.validationId))!;
    expect(validator.weight).toBe(message.weight);
  });

  it('keeps a later weight change Processing, not yet applied to the state', () => {
    const pending = small.transactions.find((t) => t.status === 'Processing')!;
    expect(pending.tx.unsigned.kind).toBe('SetL1ValidatorWeightTx');
    const view = new PChainState(small).view();
    const state = view.currentWeightAndNonce(small.pendingWeightChange.validationId)!;
    expect(state.weight).not.toBe(small.pendingWeightChange.weight);
    expect(small.pendingWeightChange.nonce + 1n).not.toBe(state.minNonce);
  });

  it('signs transactions with the owner key: txID = sha256(bytes), credentials recover the owner', () => {
    for (const { tx, id } of small.transactions) {
      expect(bytesToHex(sha256(tx.bytes))).toBe(bytesToHex(tx.id));
      expect(id).toBe(cb58Encode(tx.id));
      const sig = tx.credentials[0]![0]!;
      const recovered = secp256k1.recoverPublicKey(Uint8Array.from([sig[64]!, ...sig.subarray(0, 64)]), tx.unsignedBytes, { prehash: true });
      expect(bytesToHex(shortIdOfPublicKey(recovered))).toBe(bytesToHex(small.owner.shortId));
    }
    const conversion = small.transactions[0]!.tx;
    expect(conversion.credentials).toHaveLength(2); // the input and the subnet authorization
    expect(JSON.parse(stringifyJson(signedTxJson(conversion))).id).toBe(small.l1ConversionTxId);
  });
});

describe('P-Chain transaction encoding matches avalanchego', () => {
  // vms/platformvm/txs/convert_subnet_to_l1_tx_test.go, case "simple", and its JSON.
  const simpleTx: ConvertSubnetToL1Tx = {
    kind: 'ConvertSubnetToL1Tx',
    base: {
      networkId: 10,
      blockchainId: new Uint8Array(32),
      outputs: [],
      inputs: [
        {
          txId: hexToBytes('ffeeddccbbaa9988'.repeat(4)),
          outputIndex: 1,
          assetId: hexToBytes('21e67317cbc4be2aeb00677ad6462778a8f52274b9d605df2591b23027a87dff'),
          amount: 1_000_000n,
          signatureIndices: [5],
        },
      ],
      memo: new Uint8Array(0),
    },
    subnetId: hexToBytes('0102030405060708111213141516171821222324252627283132333435363738'),
    chainId: hexToBytes('3132333435363738212223242526272811121314151617180102030405060708'),
    address: hexToBytes('000000000000000000000000000000000000dead'),
    validators: [],
    subnetAuthSignatureIndices: [3],
  };

  it('encodes the "simple" ConvertSubnetToL1Tx byte for byte', () => {
    const expected =
      '0000' + '00000023' + '0000000a' + '00'.repeat(32) + '00000000' + '00000001' + 'ffeeddccbbaa9988'.repeat(4) + '00000001' +
      '21e67317cbc4be2aeb00677ad6462778a8f52274b9d605df2591b23027a87dff' + '00000005' + '00000000000f4240' + '00000001' + '00000005' +
      '00000000' + '0102030405060708111213141516171821222324252627283132333435363738' +
      '3132333435363738212223242526272811121314151617180102030405060708' + '00000014' + '000000000000000000000000000000000000dead' +
      '00000000' + '0000000a' + '00000001' + '00000003';
    expect(bytesToHex(encodeUnsignedTx(simpleTx))).toBe(expected);
  });

  it('writes the "simple" JSON with avalanchego’s field names and number types', () => {
    expect(JSON.parse(stringifyJson(unsignedTxJson(simpleTx)))).toEqual({
      networkID: 10,
      blockchainID: '11111111111111111111111111111111LpoYY',
      outputs: [],
      inputs: [
        {
          txID: '2wiU5PnFTjTmoAXGZutHAsPF36qGGyLHYHj9G1Aucfmb3JFFGN',
          outputIndex: 1,
          assetID: 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z',
          fxID: 'spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ',
          input: { amount: 1000000, signatureIndices: [5] },
        },
      ],
      memo: '0x',
      subnetID: 'SkB92YpWm4UpburLz9tEKZw2i67H3FF6YkjaU4BkFUDTG9Xm',
      chainID: 'NfebWJbJMmUpduqFCF8i1m5pstbVYLP1gGHbacrevXZMhpVMy',
      address: '0x000000000000000000000000000000000000dead',
      validators: [],
      subnetAuthorization: { signatureIndices: [3] },
    });
  });

  it('encodes a validator as the "complex" case does, and its weight as an exact JSON number', () => {
    const secret = hexToBytes('6668fecd4595b81e4d568398c820bbf3f073cb222902279fa55ebb84764ed2e3');
    const publicKey = hexToBytes('aff4acb4c5439b5d426cadf9e946d3a452f7de3414d1ad27336133211d8b90cf49fb97eebcdeeef714dc20f54ed0d4d1');
    const pop = proofOfPossession(secret);
    expect(bytesToHex(pop)).toBe(
      '8cfd7909d153b9604b62b143ba36207bb7e64867424480202a67dc68768346d95c90983c2d279c64c43c51136b2a05e0' +
        '1602d52aa6376fda17fa6e2a18a083e49d9c450eab7b89b1d5555da5c489872e02b7e5227b77550af1330e5a71f8c368',
    );
    const addr = hexToBytes('445566778899aabb445566778899aabb44556677');
    const tx: ConvertSubnetToL1Tx = {
      ...simpleTx,
      validators: [
        {
          nodeId: hexToBytes('1122334455667788112233445566778811223344'),
          weight: 0x0102030405060708n,
          balance: 1_000_000_000n,
          publicKey,
          proofOfPossession: pop,
          remainingBalanceOwner: { threshold: 1, addresses: [addr] },
          deactivationOwner: { threshold: 1, addresses: [addr] },
        },
      ],
      subnetAuthSignatureIndices: [],
    };
    const tail =
      '00000001' + '00000014' + '1122334455667788112233445566778811223344' + '0102030405060708' + '000000003b9aca00' + bytesToHex(publicKey) +
      bytesToHex(pop) + '00000001' + '00000001' + bytesToHex(addr) + '00000001' + '00000001' + bytesToHex(addr) + '0000000a' + '00000000';
    expect(bytesToHex(encodeUnsignedTx(tx)).endsWith(tail)).toBe(true);
    const json = stringifyJson(unsignedTxJson(tx));
    expect(json).toContain('"weight":72623859790382856');
    expect(json).toContain('"remainingBalanceOwner":{"threshold":1,"addresses":["7EKFm18KvWqcxMCNgpBSN51pJnEr1cVUb"]}');
    expect(cb58Decode('7EKFm18KvWqcxMCNgpBSN51pJnEr1cVUb')).toEqual(addr);
  });
});

describe('P-Chain transaction checks', () => {
  it('refuses conversion validators out of node ID order', () => {
    const tx = small.transactions[0]!.tx.unsigned as ConvertSubnetToL1Tx;
    const reversed: ConvertSubnetToL1Tx = { ...tx, validators: [...tx.validators].reverse() };
    expect(() => encodeUnsignedTx(reversed)).toThrow(/sorted by node ID/);
  });
});

describe('the P-Chain state view', () => {
  const view = new PChainState(small).view();

  it('knows the conversion that happened, and no other', () => {
    expect(view.conversionHappened(small.subnetId, small.conversion.conversionId)).toBe(true);
    expect(view.conversionHappened(small.subnetId, sha256(new Uint8Array([1])))).toBe(false);
    expect(view.conversionHappened(small.blockchainId, small.conversion.conversionId)).toBe(false);
    expect(view.conversionIdOf(small.blockchainId)).toBeUndefined();
  });

  it('works on a structured clone of the genesis (as a worker thread receives it)', () => {
    const cloned = new PChainState(structuredClone(small)).view();
    expect(cloned.conversionHappened(small.subnetId, small.conversion.conversionId)).toBe(true);
    expect(cloned.currentWeightAndNonce(small.weightChange.validationId)).toEqual(view.currentWeightAndNonce(small.weightChange.validationId));
  });

  it('knows which validators exist (inactive ones too) with their weight and nonce', () => {
    for (const v of small.validators) {
      expect(view.validatorExists(v.validationId)).toBe(true);
      expect(view.currentWeightAndNonce(v.validationId)?.weight).toBe(v.weight);
    }
    for (const r of small.l1Validators.filter((x) => x.balance === 0n)) expect(view.validatorExists(r.validationId)).toBe(true);
    expect(view.validatorExists(sha256(new Uint8Array([2])))).toBe(false);
    expect(view.currentWeightAndNonce(sha256(new Uint8Array([2])))).toBeUndefined();
    const untouched = small.validators.find((v) => bytesToHex(v.validationId) !== bytesToHex(small.weightChange.validationId))!;
    expect(view.currentWeightAndNonce(untouched.validationId)?.minNonce).toBe(0n);
  });
});
