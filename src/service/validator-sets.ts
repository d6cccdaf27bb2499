// The validator sets the service reads (from the node's P-Chain, cached), and what they feed
// (peer-admission.ts): the peer admission (signers that dial in are admitted only with a key of a
// validator set the service has read, or an allowed one, checked before their proof is) and the
// validator directory (which NodeIDs a key stands for, whom the p2p transport connects to).
import type { Logger } from 'pino';
import type { BlsBackend } from '../bls/types.js';
import type { ValidatorSets } from '../aggregator/aggregator.js';
import type { PChainClient } from '../node/pchain.js';
import { PeerAdmission } from '../peers/admission.js';
import { ValidatorSetCache } from '../validators/set-cache.js';
import { parseCb58Id } from '../warp/cb58.js';
import { bytesToHex } from '../warp/hex.js';
import type { Config } from '../config/config.js';
import { NodeNotConfiguredError } from '../node/errors.js';
import { keepSubnetSetsCurrent, trackValidatorSets } from './peer-admission.js';
import { ValidatorDirectory } from './validator-directory.js';

class NoNodeConfigured implements ValidatorSets {
  private fail(): never {
    throw new NodeNotConfiguredError('validator sets');
  }
  get(): Promise<never> {
    return Promise.reject(this.fail());
  }
  signingSubnetFor(): Promise<never> {
    return Promise.reject(this.fail());
  }
  proposedHeight(): Promise<never> {
    return Promise.reject(this.fail());
  }
}

interface ServedValidatorSets {
  /** Every set read here is seen by `admission` and `directory`. */
  sets: ValidatorSets;
  admission: PeerAdmission;
  directory: ValidatorDirectory;
  /** Keeps the current sets of readiness.subnets read (for admission, p2p connections and the status page) until called. */
  stopRefresh: () => void;
  /** readiness.subnets: the subnets the service serves, as configured and as bytes. */
  subnets: { name: string; id: Uint8Array }[];
}

/** True when the p2p transport runs: it needs the node (network ID, sets, addresses). */
export function p2pEnabled(config: Config): boolean {
  return config.p2p.enabled && config.upstreams.node !== null;
}

export function openValidatorSets(config: Config, pchain: PChainClient | null, bls: BlsBackend, logger: Logger): ServedValidatorSets {
  const subnets = config.readiness.subnets.map((name) => ({ name, id: parseCb58Id(name, 'readiness.subnets') }));
  const admission = new PeerAdmission({
    mode: config.peerAdmission.mode,
    allowedKeys: config.peerAdmission.allowedKeys,
    pinnedSubnets: subnets.map((s) => bytesToHex(s.id)),
    // As many as the set cache keeps: fixed heights and current sets.
    maxSets: 2 * config.validatorSets.maxEntries,
  });
  const { currentTtlMs, currentMaxStaleMs, maxEntries, maxLookback } = config.validatorSets;
  const read: ValidatorSets = pchain ? new ValidatorSetCache({ client: pchain, bls, currentTtlMs, currentMaxStaleMs, maxEntries, maxLookback }) : new NoNodeConfigured();
  const directory = new ValidatorDirectory({ pinnedSubnets: subnets.map((s) => bytesToHex(s.id)), maxSubnets: config.validatorSets.maxEntries });
  const sets = trackValidatorSets(read, [admission, directory]);
  if (admission.mode === 'validators' && subnets.length === 0 && config.peerAdmission.allowedKeys.length === 0) {
    logger.warn(
      'peerAdmission.mode is validators but readiness.subnets and peerAdmission.allowedKeys are empty: a signer that dials in is admitted only once an aggregation has read its validator set',
    );
  }
  // Whatever the admission mode or transport: the status page shows only sets held, never reads one.
  const stopRefresh = pchain
    ? keepSubnetSetsCurrent({ sets, subnets, intervalMs: config.peerAdmission.setRefreshMs, logger: logger.child({ component: 'peers' }) })
    : () => {};
  return { sets, admission, directory, stopRefresh, subnets };
}
