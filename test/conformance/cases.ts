// The conformance cases: the same requests, built for each network's IDs, sent to a node over
// avalanchego's peer protocol (probe.ts). A case answers with what the node did. The suite
// (test/interop/80-simulation-conformance.test.ts) runs every case against a real avalanchego
// node and the devnet's simulated one and compares; test/devnet holds the simulation to the
// real node's answers where the simulation was once wrong.
import { randomBytes } from 'node:crypto';
import {
  concatBytes,
  encodeAddressedCall,
  encodeHashPayload,
  encodeL1Message,
  newPChainMessage,
  newUnsignedMessage,
  validationIdFromIndex,
  type L1Message,
} from '../../src/warp/index.js';
import { encodeL1ValidatorRegistrationJustification } from '../../src/warp/justification.js';
import { encodeSignatureRequestAppBytes, encodeUvarint } from '../../src/p2p/acp118.js';
import { MAX_MESSAGE_BYTES } from '../../src/p2p/constants.js';
import type { Handshake } from '../../src/p2p/gen/p2p/p2p_pb.js';
import { Probe, type HandshakeOutcome, type Outcome, type ProbeTarget } from './probe.js';

export interface SubjectNode extends ProbeTarget {
  blsPublicKey: Uint8Array;
}

/** One network as the cases see it: where to send, and the IDs and state to build requests from. */
export interface ConformanceSubject {
  networkId: number;
  /** A node that runs the P-Chain. */
  pchainNode: SubjectNode;
  /** A node that runs the EVM chain below (subnet-evm on the real network). */
  evmNode: SubjectNode;
  evmChainId: Uint8Array;
  /** The hash of a block the EVM chain has accepted (a Hash payload it signs). */
  acceptedBlockHash: Uint8Array;
  /** A subnet converted to an L1, its conversion ID, and its first validator (index 0). */
  subnetId: Uint8Array;
  conversionId: Uint8Array;
  /** The minNonce of validator index 0 of that L1. */
  minNonce: bigint;
}

export type CaseOutcome = Outcome | HandshakeOutcome;

export interface ConformanceCase {
  group: string;
  name: string;
  run(s: ConformanceSubject): Promise<CaseOutcome>;
  /** Set where the simulation may answer otherwise, and why (the one accepted difference). */
  acceptedDifference?: string;
}

/** How long a node has to answer or close before its silence counts (generous: a loaded machine). */
export const ANSWER_MS = 5_000;
const P_CHAIN = new Uint8Array(32);
const REQUEST = 1;

function pMessage(s: ConformanceSubject, msg: L1Message, networkId = s.networkId): Uint8Array {
  return newPChainMessage(networkId, msg).bytes;
}

function conversionMessage(s: ConformanceSubject, networkId = s.networkId): Uint8Array {
  return pMessage(s, { type: 'SubnetToL1Conversion', conversionId: s.conversionId }, networkId);
}

function flipped(bytes: Uint8Array): Uint8Array {
  const out = Uint8Array.from(bytes);
  out[out.length - 1]! ^= 0x01;
  return out;
}

function evmHashMessage(s: ConformanceSubject, opts: { networkId?: number; hash?: Uint8Array; chain?: Uint8Array } = {}): Uint8Array {
  return newUnsignedMessage(opts.networkId ?? s.networkId, opts.chain ?? s.evmChainId, encodeHashPayload(opts.hash ?? s.acceptedBlockHash)).bytes;
}

/** A connected probe (Handshake and PeerList exchanged). */
async function connected(node: ProbeTarget): Promise<Probe> {
  const probe = await Probe.dial(node);
  probe.introduce(probe.handshake(node.networkId));
  const hs = await probe.handshakeOutcome(ANSWER_MS * 2);
  if (hs !== 'accepted') {
    probe.close();
    throw new Error(`${node.nodeId} did not accept a valid Handshake (${hs})`);
  }
  return probe;
}

async function withProbe<T>(node: ProbeTarget, use: (p: Probe) => Promise<T>): Promise<T> {
  const probe = await connected(node);
  try {
    return await use(probe);
  } finally {
    probe.close();
  }
}

/** One signature request; the answer, checked against the node's BLS key. */
function ask(pick: (s: ConformanceSubject) => { node: SubjectNode; chainId: Uint8Array; message: Uint8Array; justification?: Uint8Array; requestId?: number; deadlineMs?: number }) {
  return (s: ConformanceSubject): Promise<Outcome> => {
    const r = pick(s);
    return withProbe(r.node, async (p) => {
      const id = r.requestId ?? REQUEST;
      p.requestSignature(r.chainId, id, r.message, r.justification ?? new Uint8Array(0), r.deadlineMs);
      return p.outcome(id, ANSWER_MS, { blsPublicKey: r.node.blsPublicKey, message: r.message });
    });
  };
}

const onP = (s: ConformanceSubject, message: Uint8Array, justification: Uint8Array = new Uint8Array(0)) => ({ node: s.pchainNode, chainId: P_CHAIN, message, justification });
const onEvm = (s: ConformanceSubject, message: Uint8Array, justification: Uint8Array = new Uint8Array(0)) => ({ node: s.evmNode, chainId: s.evmChainId, message, justification });

/** Sends `disturb` on a connected probe, then a signable request: does the connection survive it? */
function thenSignable(disturb: (p: Probe, s: ConformanceSubject) => void) {
  return (s: ConformanceSubject): Promise<Outcome> =>
    withProbe(s.pchainNode, async (p) => {
      disturb(p, s);
      const message = conversionMessage(s);
      p.requestSignature(P_CHAIN, REQUEST, message, s.subnetId);
      return p.outcome(REQUEST, ANSWER_MS, { blsPublicKey: s.pchainNode.blsPublicKey, message });
    });
}

/** Sends a Handshake altered by `alter` (its clock shifted by `skewS`): does the node accept it? */
function handshakeWith(alter: (h: Handshake) => void, skewS = 0) {
  return async (s: ConformanceSubject): Promise<HandshakeOutcome> => {
    const probe = await Probe.dial(s.pchainNode);
    try {
      probe.introduce(probe.handshake(s.networkId, alter, Date.now() + skewS * 1000));
      return await probe.handshakeOutcome(ANSWER_MS);
    } finally {
      probe.close();
    }
  };
}

const frame = (body: Uint8Array, announced = body.length): Uint8Array => {
  const out = new Uint8Array(4 + body.length);
  new DataView(out.buffer).setUint32(0, announced);
  out.set(body, 4);
  return out;
};

/** An unsigned message laid out by hand: its payload may exceed the payload codec's 24 KiB. */
function rawUnsignedMessage(networkId: number, chainId: Uint8Array, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(2 + 4 + 32 + 4 + payload.length);
  const v = new DataView(out.buffer);
  v.setUint32(2, networkId);
  out.set(chainId, 6);
  v.setUint32(38, payload.length);
  out.set(payload, 42);
  return out;
}

/** An AddressedCall (no source address) of `n` bytes in all: 30 KiB is over the 24 KiB payloads allowed. */
function bigAddressedCall(n: number): Uint8Array {
  const out = new Uint8Array(n).fill(0x61);
  const v = new DataView(out.buffer);
  v.setUint16(0, 0);
  v.setUint32(2, 1);
  v.setUint32(6, 0);
  v.setUint32(10, n - 14);
  return out;
}

const registration = (validationId: Uint8Array, registered: boolean): L1Message => ({ type: 'L1ValidatorRegistration', validationId, registered });
const firstValidator = (s: ConformanceSubject): Uint8Array => validationIdFromIndex(s.subnetId, 0);
const subnetIndex = (subnetId: Uint8Array, index: number): Uint8Array => encodeL1ValidatorRegistrationJustification({ type: 'SubnetIdIndex', subnetId, index });

export const CASES: ConformanceCase[] = [
  // ACP-118 on the P-Chain (vms/platformvm/network/warp.go, then the signer).
  { group: 'P-Chain', name: 'signable: SubnetToL1Conversion, justified by its subnet ID', run: ask((s) => onP(s, conversionMessage(s), s.subnetId)) },
  { group: 'P-Chain', name: 'signable: L1ValidatorRegistration (registered) of a current validator', run: ask((s) => onP(s, pMessage(s, registration(firstValidator(s), true)))) },
  { group: 'P-Chain', name: 'signable, with an even request ID', run: ask((s) => ({ ...onP(s, conversionMessage(s), s.subnetId), requestId: 2 })) },
  { group: 'P-Chain', name: 'unsignable: another conversion ID', run: ask((s) => onP(s, pMessage(s, { type: 'SubnetToL1Conversion', conversionId: flipped(s.conversionId) }), s.subnetId)) },
  { group: 'P-Chain', name: 'unsignable: a Hash payload', run: ask((s) => onP(s, newUnsignedMessage(s.networkId, P_CHAIN, encodeHashPayload(s.acceptedBlockHash)).bytes)) },
  { group: 'P-Chain', name: 'unsignable: an AddressedCall with a source address', run: ask((s) => onP(s, newUnsignedMessage(s.networkId, P_CHAIN, encodeAddressedCall(new Uint8Array(20).fill(1), encodeL1Message({ type: 'SubnetToL1Conversion', conversionId: s.conversionId }))).bytes, s.subnetId)) },
  { group: 'P-Chain', name: 'unsignable: an AddressedCall that is no L1 message', run: ask((s) => onP(s, newUnsignedMessage(s.networkId, P_CHAIN, encodeAddressedCall(new Uint8Array(0), Uint8Array.of(1, 2, 3))).bytes)) },
  {
    group: 'P-Chain',
    name: 'unsignable: a RegisterL1Validator (the P-Chain signs no such message)',
    run: ask((s) =>
      onP(s, pMessage(s, { type: 'RegisterL1Validator', subnetId: s.subnetId, nodeId: new Uint8Array(20).fill(7), blsPublicKey: new Uint8Array(48).fill(9), expiry: 1n, remainingBalanceOwner: { threshold: 0, addresses: [] }, disableOwner: { threshold: 0, addresses: [] }, weight: 1n })),
    ),
  },
  { group: 'P-Chain', name: 'unsignable: L1ValidatorWeight with an unknown validation ID', run: ask((s) => onP(s, pMessage(s, { type: 'L1ValidatorWeight', validationId: new Uint8Array(32).fill(0x5a), nonce: 0n, weight: 1n }))) },
  { group: 'P-Chain', name: 'unsignable: L1ValidatorWeight with nonce 2^64-1', run: ask((s) => onP(s, pMessage(s, { type: 'L1ValidatorWeight', validationId: firstValidator(s), nonce: (1n << 64n) - 1n, weight: 1n }))) },
  { group: 'P-Chain', name: 'unsignable: L1ValidatorWeight with a wrong nonce', run: ask((s) => onP(s, pMessage(s, { type: 'L1ValidatorWeight', validationId: firstValidator(s), nonce: s.minNonce + 10n, weight: 1n }))) },
  { group: 'P-Chain', name: 'wrong network ID (a signable message otherwise)', run: ask((s) => onP(s, conversionMessage(s, s.networkId + 1), s.subnetId)) },
  { group: 'P-Chain', name: 'another chain\'s message sent to the P-Chain', run: ask((s) => onP(s, newUnsignedMessage(s.networkId, s.evmChainId, encodeAddressedCall(new Uint8Array(0), encodeL1Message({ type: 'SubnetToL1Conversion', conversionId: s.conversionId }))).bytes, s.subnetId)) },
  { group: 'P-Chain', name: 'a message whose payload is 30 KiB (over the 24 KiB a payload may be)', run: ask((s) => onP(s, rawUnsignedMessage(s.networkId, P_CHAIN, bigAddressedCall(30 * 1024)))) },
  // Justifications.
  { group: 'justification', name: 'SubnetToL1Conversion without a justification', run: ask((s) => onP(s, conversionMessage(s))) },
  { group: 'justification', name: 'SubnetToL1Conversion with a 31-byte justification', run: ask((s) => onP(s, conversionMessage(s), s.subnetId.subarray(1))) },
  { group: 'justification', name: 'SubnetToL1Conversion justified by another subnet (never converted)', run: ask((s) => onP(s, conversionMessage(s), new Uint8Array(32).fill(0x33))) },
  { group: 'justification', name: 'L1ValidatorRegistration (unregistered) without a justification', run: ask((s) => onP(s, pMessage(s, registration(firstValidator(s), false)))) },
  { group: 'justification', name: 'L1ValidatorRegistration (unregistered) with a garbage justification', run: ask((s) => onP(s, pMessage(s, registration(firstValidator(s), false)), Uint8Array.of(0xff, 0xff, 0xff))) },
  { group: 'justification', name: 'L1ValidatorRegistration (unregistered) of a current validator, justified by its index', run: ask((s) => onP(s, pMessage(s, registration(firstValidator(s), false)), subnetIndex(s.subnetId, 0))) },
  { group: 'justification', name: 'L1ValidatorRegistration (unregistered), justified by another index', run: ask((s) => onP(s, pMessage(s, registration(firstValidator(s), false)), subnetIndex(s.subnetId, 1))) },
  {
    group: 'justification',
    name: 'L1ValidatorRegistration (unregistered), justified by an index of a subnet never converted',
    run: ask((s) => {
      const other = new Uint8Array(32).fill(0x44);
      return onP(s, pMessage(s, registration(validationIdFromIndex(other, 0), false)), subnetIndex(other, 0));
    }),
  },
  {
    group: 'justification',
    name: 'L1ValidatorRegistration (unregistered), justified by a RegisterL1Validator that does not parse',
    run: ask((s) => onP(s, pMessage(s, registration(firstValidator(s), false)), encodeL1ValidatorRegistrationJustification({ type: 'RegisterL1ValidatorMessage', message: Uint8Array.of(0, 0, 9, 9) }))),
  },
  { group: 'justification', name: 'EVM: a Hash payload with a justification (ignored)', run: ask((s) => onEvm(s, evmHashMessage(s), randomBytes(40))) },
  // ACP-118 on the EVM chain (subnet-evm's warp backend, then the signer).
  { group: 'EVM chain', name: 'signable: the hash of an accepted block', run: ask((s) => onEvm(s, evmHashMessage(s))) },
  { group: 'EVM chain', name: 'unsignable: a payload that does not parse', run: ask((s) => onEvm(s, newUnsignedMessage(s.networkId, s.evmChainId, Uint8Array.of(0, 0, 0, 0, 0, 9)).bytes)) },
  { group: 'EVM chain', name: 'unsignable: an AddressedCall the chain never sent', run: ask((s) => onEvm(s, newUnsignedMessage(s.networkId, s.evmChainId, encodeAddressedCall(new Uint8Array(20).fill(2), randomBytes(16))).bytes)), acceptedDifference: 'the devnet runs no EVM: every well-formed message of its own chain counts as sent' },
  { group: 'EVM chain', name: 'unsignable: the hash of no block', run: ask((s) => onEvm(s, evmHashMessage(s, { hash: randomBytes(32) }))), acceptedDifference: 'the devnet runs no EVM: every well-formed message of its own chain counts as sent' },
  { group: 'EVM chain', name: 'wrong network ID (an accepted block\'s hash)', run: ask((s) => onEvm(s, evmHashMessage(s, { networkId: s.networkId + 1 }))) },
  { group: 'EVM chain', name: 'another chain\'s message (an accepted block\'s hash, the P-Chain as source)', run: ask((s) => onEvm(s, evmHashMessage(s, { chain: P_CHAIN }))) },
  { group: 'EVM chain', name: 'signable, with an even request ID', run: ask((s) => ({ ...onEvm(s, evmHashMessage(s)), requestId: 2 })) },
  { group: 'EVM chain', name: 'a message whose payload is 30 KiB (over the 24 KiB a payload may be)', run: ask((s) => onEvm(s, rawUnsignedMessage(s.networkId, s.evmChainId, bigAddressedCall(30 * 1024)))) },
  // Routing.
  { group: 'routing', name: 'a chain the node does not run', run: ask((s) => ({ ...onP(s, conversionMessage(s), s.subnetId), chainId: new Uint8Array(32).fill(0xee) })) },
  { group: 'routing', name: 'a chain ID of 31 bytes', run: ask((s) => ({ ...onP(s, conversionMessage(s), s.subnetId), chainId: new Uint8Array(31) })) },
  { group: 'routing', name: 'an expired deadline (0)', run: ask((s) => ({ ...onP(s, conversionMessage(s), s.subnetId), deadlineMs: 0 })) },
  {
    group: 'routing',
    name: 'an unknown ACP-118 handler prefix',
    run: (s) =>
      withProbe(s.pchainNode, async (p) => {
        p.requestRaw(P_CHAIN, REQUEST, concatBytes(encodeUvarint(7), Uint8Array.of(0x0a, 0x00)));
        return p.outcome(REQUEST, ANSWER_MS);
      }),
  },
  {
    group: 'routing',
    name: 'the signature handler with bytes that are no SignatureRequest',
    run: (s) =>
      withProbe(s.pchainNode, async (p) => {
        p.requestRaw(P_CHAIN, REQUEST, concatBytes(encodeUvarint(2), Uint8Array.of(0x0a, 0xc8, 0x01)));
        return p.outcome(REQUEST, ANSWER_MS);
      }),
  },
  {
    group: 'routing',
    name: 'an AppRequest before our PeerList',
    run: async (s) => {
      const p = await Probe.dial(s.pchainNode);
      try {
        p.send({ case: 'handshake', value: p.handshake(s.networkId) });
        const message = conversionMessage(s);
        p.requestSignature(P_CHAIN, REQUEST, message, s.subnetId);
        return await p.outcome(REQUEST, ANSWER_MS, { blsPublicKey: s.pchainNode.blsPublicKey, message });
      } finally {
        p.close();
      }
    },
  },
  // Frames (each followed by a signable request on the same connection).
  { group: 'frames', name: 'a garbage frame, then a signable request', run: thenSignable((p) => p.sendRaw(frame(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x0f, 0x01)))) },
  { group: 'frames', name: 'an empty frame, then a signable request', run: thenSignable((p) => p.sendRaw(frame(new Uint8Array(0)))) },
  { group: 'frames', name: 'a message of an unknown kind (field 99), then a signable request', run: thenSignable((p) => p.sendRaw(frame(Uint8Array.of(0x98, 0x06, 0x01)))) },
  { group: 'frames', name: 'zstd garbage in compressed_zstd, then a signable request', run: thenSignable((p) => p.sendRaw(frame(Uint8Array.of(0x12, 0x04, 1, 2, 3, 4)))) },
  { group: 'frames', name: 'a 1 MiB garbage frame, then a signable request', run: thenSignable((p) => p.sendRaw(frame(new Uint8Array(1 << 20).fill(0xff)))) },
  { group: 'frames', name: 'a frame announcing 2 MiB + 1 bytes, then a signable request', run: thenSignable((p) => p.sendRaw(frame(new Uint8Array(0), MAX_MESSAGE_BYTES + 1))) },
  { group: 'frames', name: 'a Ping with uptime 101, then a signable request', run: thenSignable((p) => p.send({ case: 'ping', value: { $typeName: 'p2p.Ping', uptime: 101 } })) },
  { group: 'frames', name: 'a Pong that answers no Ping, then a signable request', run: thenSignable((p) => p.send({ case: 'pong', value: { $typeName: 'p2p.Pong' } })) },
  {
    group: 'frames',
    name: '3,000 messages of an unknown kind in one burst, then a signable request',
    run: thenSignable((p) => p.sendRaw(concatBytes(...Array.from({ length: 3_000 }, () => frame(Uint8Array.of(0x98, 0x06, 0x01)))))),
  },
  {
    group: 'frames',
    name: 'an AppResponse to no request, then a signable request',
    run: thenSignable((p) => p.send({ case: 'appResponse', value: { $typeName: 'p2p.AppResponse', chainId: P_CHAIN, requestId: 77, appBytes: Uint8Array.of(1) } }, true)),
  },
  {
    group: 'frames',
    name: 'an AppError to no request, then a signable request',
    run: thenSignable((p) => p.send({ case: 'appError', value: { $typeName: 'p2p.AppError', chainId: P_CHAIN, requestId: 79, errorCode: 1, errorMessage: 'x' } })),
  },
  {
    group: 'frames',
    name: 'a signable request compressed with zstd',
    run: (s) =>
      withProbe(s.pchainNode, async (p) => {
        const message = conversionMessage(s);
        const appBytes = encodeSignatureRequestAppBytes(message, s.subnetId);
        p.send({ case: 'appRequest', value: { $typeName: 'p2p.AppRequest', chainId: P_CHAIN, requestId: REQUEST, deadline: 10_000_000_000n, appBytes } }, true);
        return p.outcome(REQUEST, ANSWER_MS, { blsPublicKey: s.pchainNode.blsPublicKey, message });
      }),
  },
  { group: 'frames', name: 'a second Handshake, then a signable request', run: thenSignable((p, s) => p.send({ case: 'handshake', value: p.handshake(s.networkId) })) },
  // The Handshake (network/peer/peer.go handleHandshake).
  { group: 'Handshake', name: 'a valid Handshake', run: handshakeWith(() => undefined) },
  {
    group: 'Handshake',
    name: 'a second connection with a connected NodeID (then the first one signs)',
    run: (s) =>
      withProbe(s.pchainNode, async (first) => {
        const second = await Probe.dial(s.pchainNode, first.identity);
        second.introduce(second.handshake(s.networkId));
        const outcome = await second.handshakeOutcome(ANSWER_MS);
        second.close();
        const message = conversionMessage(s);
        first.requestSignature(P_CHAIN, REQUEST, message, s.subnetId);
        const firstStill = await first.outcome(REQUEST, ANSWER_MS, { blsPublicKey: s.pchainNode.blsPublicKey, message });
        return firstStill === 'signature' ? outcome : firstStill;
      }),
  },
  { group: 'Handshake', name: 'wrong network ID', run: (s) => handshakeWith((h) => (h.networkId = s.networkId + 1))(s) },
  { group: 'Handshake', name: 'a bad IP signature (TLS key)', run: handshakeWith((h) => (h.ipNodeIdSig = flipped(h.ipNodeIdSig))) },
  { group: 'Handshake', name: 'an IP BLS signature that is no BLS signature', run: handshakeWith((h) => (h.ipBlsSig = new Uint8Array(96).fill(0xab))) },
  { group: 'Handshake', name: 'an IP signed 2 minutes in the future', run: handshakeWith((h) => (h.myTime = BigInt(Math.floor(Date.now() / 1000))), 120) },
  { group: 'Handshake', name: 'an old version (avalanchego/1.9.0)', run: handshakeWith((h) => (h.client = { ...h.client!, major: 1, minor: 9, patch: 0 })) },
  { group: 'Handshake', name: 'a newer major version (avalanchego/2.0.0)', run: handshakeWith((h) => (h.client = { ...h.client!, major: 2, minor: 0, patch: 0 })) },
  { group: 'Handshake', name: 'another client name (warpgate/1.14.2)', run: handshakeWith((h) => (h.client = { ...h.client!, name: 'warpgate', major: 1, minor: 14, patch: 2 })) },
  { group: 'Handshake', name: 'a clock 2 minutes ahead', run: handshakeWith(() => undefined, 120) },
  { group: 'Handshake', name: 'a clock 2 minutes behind', run: handshakeWith(() => undefined, -120) },
  { group: 'Handshake', name: 'a clock 30 s ahead (within the 60 s allowed)', run: handshakeWith(() => undefined, 30) },
];
