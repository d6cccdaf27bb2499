// The relayer: one RouteRunner per configured route, started when the route's lease is held, and
// the control surface the HTTP edge, the status page and the CLI use (routes, readiness, find,
// manual relay). See route-runner.ts for a route's work and delivery.ts for one message's.
import type { Hex, MessageRecord, RelayerControl, RouteState, SourceMessage } from './ports.js';
import { decodeSourceMessage, messengerOf } from './decode.js';
import { reasonOf, RelayerError } from './errors.js';
import { resolveLimits, resolveRoutes, type RelayerOptions } from './options.js';
import { RouteRunner, type RunnerContext } from './route-runner.js';
import { routeOf, skipReason } from './screen.js';
import { untilAborted } from '../util/abortable.js';

export interface Relayer extends RelayerControl {
  /** Starts every route (each once its lease is held). */
  start(): Promise<void>;
  /** Takes no new messages, drains deliveries in flight (up to limits.drainMs), releases the leases. The store stays open: its owner closes it. */
  stop(): Promise<void>;
}

/** Teleporter IDs remembered for find() when the store cannot look them up itself. */
const TELEPORTER_ID_MEMORY = 10_000;

export function createRelayer(options: RelayerOptions): Relayer {
  const routes = resolveRoutes(options);
  const configured = resolveLimits(options.limits);
  // A margin past what a renewed lease ever has left would stop a healthy holder's broadcasts (a
  // short relayer.leaseTtlMs): it is capped at what the leases can keep.
  const limits = { ...configured, leaseMarginMs: Math.min(configured.leaseMarginMs, options.leases.maxMarginMs ?? Infinity) };
  const now = options.now ?? Date.now;
  const events = options.events ?? {};
  const runners = new Map<string, RouteRunner>();
  for (const route of routes) {
    const context: RunnerContext = {
      route,
      source: options.sources[route.sourceBlockchainId]!,
      destination: options.destinations[route.destinationBlockchainId]!,
      sign: options.sign,
      store: options.store,
      leases: options.leases,
      limits,
      logger: options.logger,
      events,
      now,
    };
    runners.set(route.id, new RouteRunner(context));
  }
  const teleporterIds = new Map<Hex, Hex>();
  let state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  let pruneTimer: NodeJS.Timeout | undefined;
  const prune = async (): Promise<void> => {
    try {
      const pruned = await options.store.prune(now() - limits.pruneAfterMs);
      if (pruned) options.logger.info({ pruned }, 'relayer: pruned finished messages');
    } catch (err) {
      options.logger.warn({ err: reasonOf(err) }, 'relayer: prune failed');
    }
  };

  const rememberTeleporterId = (record: MessageRecord): void => {
    if (options.store.getByTeleporterId) return;
    teleporterIds.set(record.message.teleporterMessageId, record.message.warpMessageId);
    if (teleporterIds.size > TELEPORTER_ID_MEMORY) teleporterIds.delete(teleporterIds.keys().next().value!);
  };

  /** A manual relay's message: refused unless a route relays it; stored and queued otherwise. */
  const admitManual = async (message: SourceMessage): Promise<MessageRecord> => {
    if (state !== 'running') throw new RelayerError('stopping', 'the relayer is not running');
    const route = routeOf(routes, message);
    if (!route) throw new RelayerError('no-route', `no route relays messages from ${message.sourceBlockchainId} to ${message.destinationBlockchainId}`);
    const runner = runners.get(route.id)!;
    const reason = skipReason(route, message, options.destinations[route.destinationBlockchainId]!.relayerAddresses());
    if (reason) throw new RelayerError('no-route', `route ${route.id} does not relay this message: ${reason}`);
    const record = await runner.admit(message);
    rememberTeleporterId(record);
    if (record.status === 'parked' || record.status === 'seen' || record.status === 'signed' || record.status === 'submitted') runner.enqueue(message.warpMessageId, true);
    return record;
  };

  return {
    async start() {
      if (state !== 'new') throw new RelayerError('config', 'the relayer was started already');
      state = 'running';
      options.leases.start(routes.map((r) => r.id), (route, held) => runners.get(route)?.setHeld(held));
      pruneTimer = setInterval(() => void prune(), limits.pruneEveryMs);
      pruneTimer.unref();
      void prune();
      options.logger.info({ routes: routes.map((r) => r.id) }, 'relayer: started');
    },

    async stop() {
      if (state === 'stopping' || state === 'stopped') return;
      state = 'stopping';
      clearInterval(pruneTimer);
      await Promise.all([...runners.values()].map((r) => r.stop()));
      await options.leases.stop();
      state = 'stopped';
      options.logger.info({}, 'relayer: stopped');
    },

    routes(): RouteState[] {
      return routes.map((route) => {
        const runner = runners.get(route.id)!;
        return {
          id: route.id,
          sourceBlockchainId: route.sourceBlockchainId,
          destinationBlockchainId: route.destinationBlockchainId,
          checkpoint: runner.checkpoint,
          head: runner.head,
          held: runner.held,
          inFlight: runner.inFlightCount,
          parked: runner.parkedCount,
          ...(runner.held && runner.problem ? { problem: runner.problem } : {}),
        };
      });
    },

    readiness() {
      if (state !== 'running') return { ready: false, reasons: [`relayer is ${state === 'new' ? 'not started' : state}`] };
      // A standby holds no lease and runs no route: it is ready to take over, not broken.
      const reasons = [...runners.entries()].filter(([, r]) => r.held && r.problem).map(([id, r]) => `route ${id}: ${r.problem}`);
      return { ready: reasons.length === 0, reasons };
    },

    async find(id) {
      const key = id.toLowerCase() as Hex;
      const byWarpId = await options.store.get(key);
      if (byWarpId) return byWarpId;
      if (options.store.getByTeleporterId) return options.store.getByTeleporterId(key);
      const warpId = teleporterIds.get(key);
      return warpId && options.store.get(warpId);
    },

    async relayFromBlock({ blockchainId, messageId, blockNumber }) {
      const source = options.sources[blockchainId];
      if (!source) throw new RelayerError('no-route', `no route relays messages from chain ${blockchainId}`);
      if (!Number.isSafeInteger(blockNumber) || blockNumber < 0) throw new RelayerError('bad-message', 'block-num must be a block number');
      const deadline = AbortSignal.timeout(limits.rpcTimeoutMs);
      let blocks;
      try {
        blocks = await untilAborted(source.blocksInRange(blockNumber, blockNumber, deadline), deadline);
      } catch (err) {
        throw new RelayerError('unavailable', `chain ${blockchainId} did not return block ${blockNumber}'s logs: ${reasonOf(err)}`, { cause: err });
      }
      const wanted = messageId.toLowerCase();
      const message = blocks.flatMap((b) => (b.number === blockNumber ? b.messages : [])).find((m) => m.warpMessageId.toLowerCase() === wanted);
      if (!message) throw new RelayerError('not-found', `block ${blockNumber} of chain ${blockchainId} holds no Teleporter message ${messageId}`);
      return admitManual(message);
    },

    async relayMessage({ unsignedMessage, sourceAddress }) {
      const message = decodeSourceMessage(unsignedMessage);
      if (messengerOf(message.unsignedMessage) !== sourceAddress.toLowerCase()) {
        throw new RelayerError('bad-message', `the message was sent by ${messengerOf(message.unsignedMessage)}, not by ${sourceAddress}`);
      }
      return admitManual(message);
    },
  };
}
