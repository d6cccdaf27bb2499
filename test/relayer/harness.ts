// A relayer over the fakes, with quick retry schedules, as the engine tests start it.
import { createRelayer, type Relayer } from '../../src/relayer/engine.js';
import { DEFAULT_RELAYER_LIMITS, type RelayerLimits, type RouteConfig } from '../../src/relayer/options.js';
import type { RelayerStore, RouteLeases } from '../../src/relayer/ports.js';
import { createLocalLeases } from '../../src/relayer/store/local-leases.js';
import { createMemoryStore } from '../../src/relayer/store/memory-store.js';
import { CHAIN_A, CHAIN_B, FakeDestination, FakeSource, fakeSigner, memoryLogger, recordingEvents } from './fakes.js';

export const ROUTE = `${CHAIN_A}->${CHAIN_B}`;

export const QUICK_LIMITS: Partial<RelayerLimits> = {
  retry: { initialMs: 20, maxMs: 60, factor: 2, attemptsBeforePark: 3 },
  parked: { initialMs: 100, maxMs: 300, factor: 2, scanEveryMs: 50 },
  reconnect: { initialMs: 20, maxMs: 100, factor: 2 },
  idleCheckMs: 200,
  drainMs: 5_000,
  rpcTimeoutMs: 5_000,
};

export interface HarnessOptions {
  readonly route?: Partial<RouteConfig>;
  readonly limits?: Partial<RelayerLimits>;
  readonly store?: RelayerStore;
  readonly leases?: RouteLeases;
  readonly source?: FakeSource;
  readonly destination?: FakeDestination;
}

export function harness(options: HarnessOptions = {}) {
  const source = options.source ?? new FakeSource();
  const destination = options.destination ?? new FakeDestination();
  const signer = fakeSigner();
  const store = options.store ?? createMemoryStore();
  const logger = memoryLogger();
  const events = recordingEvents();
  const relayer: Relayer = createRelayer({
    routes: [{ sourceBlockchainId: CHAIN_A, destinationBlockchainId: CHAIN_B, startHeight: 1, ...options.route }],
    sources: { [CHAIN_A]: source },
    destinations: { [CHAIN_B]: destination },
    sign: signer.sign,
    store,
    leases: options.leases ?? createLocalLeases(),
    logger,
    events,
    limits: { ...DEFAULT_RELAYER_LIMITS, ...QUICK_LIMITS, ...options.limits },
  });
  return { relayer, source, destination, signer, store, logger, events };
}
