// Shared by the aggregator unit tests: a validator set with known secret keys, an in-process
// PeerSource whose peers behave as told (honest, slow, silent, refusing, or sending bad
// signatures of every kind), and a ValidatorSets that hands out that one set. No sockets: the
// collection logic is exercised against the real BLS pool only.
import { createHash } from 'node:crypto';
import type { SecretKey } from '../../src/bls/types.js';
import { canonicalSet, type CanonicalSet, type ValidatorEntry } from '../../src/validators/canonical-set.js';
import { PeerRequestError } from '../../src/peers/pool.js';
import type { AskDone, AskTicket, CancelWhy, PeerAnswer, PeerSource, SignatureRequest } from '../../src/aggregator/peer-source.js';
import type { DestinationEpochs, ValidatorSets } from '../../src/aggregator/aggregator.js';
import type { ChainEpoch } from '../../src/validators/epoch-cache.js';
import { nodeIdToString } from '../../src/warp/cb58.js';
import { bytesToHex } from '../../src/warp/hex.js';
import { newUnsignedMessage, type UnsignedMessage } from '../../src/warp/unsigned-message.js';
import { blst, g2PointOutsideSubgroup } from '../bls/helpers.js';
import { secretKey } from '../bls-pool/helpers.js';

export const NETWORK_ID = 12345;
export const CHAIN = Uint8Array.from({ length: 32 }, (_, i) => i + 7);
export const SUBNET = Uint8Array.from({ length: 32 }, (_, i) => 99 - i);

export function message(text: string): UnsignedMessage {
  return newUnsignedMessage(NETWORK_ID, CHAIN, new TextEncoder().encode(text));
}

export interface TestValidator {
  nodeId: string;
  weight: bigint;
  sk: SecretKey;
  pkHex: string;
}

export interface TestNetwork {
  validators: TestValidator[];
  /** What the P-Chain would report: the keyed validators and one keyless entry. */
  entries: ValidatorEntry[];
  set: CanonicalSet;
  byKey: Map<string, TestValidator>;
}

/** Validators with the given weights (in order) plus a keyless entry carrying `keylessWeight`. */
export function testNetwork(weights: readonly number[], keylessWeight = 0, label = 'agg'): TestNetwork {
  const validators = weights.map((w, i): TestValidator => {
    const sk = secretKey(`${label}-${i}`);
    const nodeId = nodeIdToString(createHash('sha256').update(`${label}-node-${i}`).digest().subarray(0, 20));
    return { nodeId, weight: BigInt(w), sk, pkHex: bytesToHex(blst.publicKeyOf(sk).bytes) };
  });
  const entries: ValidatorEntry[] = validators.map((v) => ({ nodeId: v.nodeId, weight: v.weight, publicKey: blst.publicKeyOf(v.sk).bytes }));
  if (keylessWeight > 0) entries.push({ nodeId: 'NodeID-111111111111111111116DBWJs', weight: BigInt(keylessWeight), publicKey: null });
  return { validators, entries, set: canonicalSet(entries, blst), byKey: new Map(validators.map((v) => [v.pkHex, v])) };
}

export function sign(v: TestValidator, bytes: Uint8Array): Uint8Array {
  return blst.sign(v.sk, bytes).bytes;
}

export type Behaviour =
  | { kind: 'honest'; delayMs?: number }
  | { kind: 'silent' }
  | { kind: 'refuse'; delayMs?: number }
  | { kind: 'fail' }
  | { kind: 'disconnected' }
  | { kind: 'otherMessage' }
  | { kind: 'otherKey' }
  | { kind: 'outsideSubgroup' }
  | { kind: 'garbage' }
  | { kind: 'infinity' }
  | { kind: 'fixed'; signature: Uint8Array; delayMs?: number };

const INFINITY_G2 = (() => {
  const b = new Uint8Array(96);
  b[0] = 0xc0;
  return b;
})();

/** An in-process PeerSource: each key answers as its behaviour says, until its caller cancels the request. */
export class FakePeers implements PeerSource {
  /** Keys asked, in order. */
  readonly requests: string[] = [];
  readonly penalties: { pkHex: string; reason: string }[] = [];
  aborted = 0;
  /** Keys whose request ended with an answer (signature or refusal) or a failure, in order. */
  readonly settled: string[] = [];
  /** Keys whose request its caller gave up on at the request's deadline, in order. */
  readonly timedOut: string[] = [];
  /** Why each request cancelled before its deadline was cancelled, in order. */
  readonly abortReasons: CancelWhy[] = [];
  private readonly behaviours = new Map<string, Behaviour>();

  constructor(private readonly net: TestNetwork) {}

  set(pkHex: string, b: Behaviour): this {
    this.behaviours.set(pkHex, b);
    return this;
  }

  behaviourOf(pkHex: string): Behaviour {
    return this.behaviours.get(pkHex) ?? { kind: 'honest' };
  }

  isConnected(pkHex: string): boolean {
    return this.behaviourOf(pkHex).kind !== 'disconnected' && this.net.byKey.has(pkHex);
  }

  penalize(pkHex: string, reason: string): void {
    this.penalties.push({ pkHex, reason });
  }

  askedWeight(): bigint {
    return this.requests.reduce((sum, k) => sum + this.net.byKey.get(k)!.weight, 0n);
  }

  ask(pkHex: string, req: SignatureRequest, _timeoutMs: number, done: AskDone): AskTicket {
    this.requests.push(pkHex);
    const v = this.net.byKey.get(pkHex)!;
    const b = this.behaviourOf(pkHex);
    const answer = (): PeerAnswer | Error => {
      switch (b.kind) {
        case 'honest':
          return { kind: 'signature', signature: sign(v, req.message) };
        case 'refuse':
          return { kind: 'refused', reason: 'policy: not signing this' };
        case 'fail':
          return new PeerRequestError('disconnected', pkHex, 'connection closed');
        case 'otherMessage':
          return { kind: 'signature', signature: sign(v, new TextEncoder().encode('something else')) };
        case 'otherKey':
          return { kind: 'signature', signature: blst.sign(secretKey('a stranger'), req.message).bytes };
        case 'outsideSubgroup':
          return { kind: 'signature', signature: g2PointOutsideSubgroup() };
        case 'garbage':
          return { kind: 'signature', signature: Uint8Array.from({ length: 96 }, (_, i) => (i * 37 + 11) & 0xff) };
        case 'infinity':
          return { kind: 'signature', signature: INFINITY_G2 };
        case 'fixed':
          return { kind: 'signature', signature: b.signature };
        default:
          return new PeerRequestError('not-connected', pkHex, 'no connection');
      }
    };
    const delayMs = 'delayMs' in b && b.delayMs !== undefined ? b.delayMs : b.kind === 'silent' ? Number.POSITIVE_INFINITY : 1;
    let open = true;
    const timer = Number.isFinite(delayMs)
      ? setTimeout(() => {
          open = false;
          this.settled.push(pkHex);
          const a = answer();
          if (a instanceof Error) done(a, undefined);
          else done(undefined, a);
        }, delayMs)
      : undefined;
    return {
      cancel: (why) => {
        if (!open) return;
        open = false;
        clearTimeout(timer);
        if (why === 'timeout') this.timedOut.push(pkHex);
        else {
          this.aborted++;
          this.abortReasons.push(why);
        }
      },
    };
  }
}

/** The P-Chain's proposed height as fixedSets reports it. */
export const PROPOSED_HEIGHT = 1_000;

/** One set at every height; records the heights asked for and whether the client chose each. */
export function fixedSets(net: TestNetwork): ValidatorSets & { gets: number; heights: { height: number; chosenByClient: boolean }[] } {
  const sets = {
    gets: 0,
    heights: [] as { height: number; chosenByClient: boolean }[],
    get: async (_subnet: Uint8Array, height: number, request: { chosenByClient?: boolean } = {}): Promise<CanonicalSet> => {
      sets.gets++;
      sets.heights.push({ height, chosenByClient: request.chosenByClient === true });
      return net.set;
    },
    signingSubnetFor: async (): Promise<Uint8Array> => SUBNET,
    proposedHeight: async (): Promise<number> => PROPOSED_HEIGHT,
  };
  return sets;
}

/** Destination epochs from a table (hex chain ID → epoch); an unknown chain rejects as an unreachable one would. */
export function fixedEpochs(epochs: Record<string, ChainEpoch> = {}): DestinationEpochs & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    get: async (chainId: Uint8Array): Promise<ChainEpoch> => {
      const hex = bytesToHex(chainId);
      asked.push(hex);
      const epoch = epochs[hex];
      if (!epoch) throw new Error(`no epoch for destination ${hex}`);
      return epoch;
    },
  };
}

export function weightOfKeys(net: TestNetwork, keys: Iterable<string>): bigint {
  let w = 0n;
  for (const k of keys) w += net.byKey.get(k)!.weight;
  return w;
}
