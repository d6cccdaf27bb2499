// The restart policy of the devnet's signer host supervisor, on fake processes and fake timers:
// the same ports again, backoff that doubles up to its cap, a reset after a host that stayed up,
// giving up on a crash loop, and no restart once stopped. The real processes are in
// supervision.test.ts.
import { EventEmitter } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { SignerSupervisor, restartDelayMs, type LaunchHost, type RestartPolicy } from '../../../src/devnet/signers/supervisor.js';
import type { HostedSigner, SignerHostReady } from '../../../src/devnet/signers/protocol.js';

class FakeChild extends EventEmitter {
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  static next = 1000;
  readonly pid = FakeChild.next++;
  readonly signals: NodeJS.Signals[] = [];

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    this.signals.push(signal);
    if (this.exitCode === null && this.signalCode === null) setImmediate(() => this.die(null, signal));
    return true;
  }

  /** The process ends on its own (kill -9 from outside, a crash). */
  die(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitCode !== null || this.signalCode !== null) return;
    this.exitCode = code;
    this.signalCode = signal;
    this.emit('exit', code, signal);
  }
}

const SIGNERS: HostedSigner[] = [{ secretKeyHex: '01' }, { secretKeyHex: '02' }];
const POLICY: RestartPolicy = { minDelayMs: 100, maxDelayMs: 1_000, stableMs: 5_000, maxQuickRestarts: 3 };

interface Launch {
  signers: HostedSigner[];
  child: FakeChild;
}

let launches: Launch[];
/** What the next launches do: 'ready' (default), 'fail' (the host could not start) or 'hold' (ready once release() is called). */
let outcomes: ('ready' | 'fail' | 'hold')[];
let release: (() => void) | undefined;
let lines: Record<string, any>[];
let supervisor: SignerSupervisor;

const launch: LaunchHost = async (signers) => {
  const child = new FakeChild();
  launches.push({ signers, child });
  const outcome = outcomes.shift() ?? 'ready';
  await new Promise((r) => setImmediate(r));
  if (outcome === 'hold') await new Promise<void>((r) => (release = r));
  if (outcome === 'fail') {
    child.die(1, null);
    throw new Error('listen EADDRINUSE: address already in use 127.0.0.1:9700');
  }
  const ready: SignerHostReady = { type: 'ready', signers: signers.map((s, i) => ({ publicKeyHex: s.secretKeyHex, port: s.port ?? 9700 + i })) };
  return { child: child as unknown as ChildProcess, ready };
};

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  launches = [];
  outcomes = [];
  lines = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => lines.push(JSON.parse(l) as Record<string, any>) });
  supervisor = new SignerSupervisor({ name: 'signer host 0', signers: SIGNERS, launch, policy: POLICY, logger: () => logger });
});
afterEach(async () => {
  await supervisor.stop(0);
  vi.useRealTimers();
});

/** Lets the fake launches and exits (setImmediate) run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

const last = (): FakeChild => launches[launches.length - 1]!.child;
const messages = (): string[] => lines.map((l) => l.msg as string);

describe('SignerSupervisor', () => {
  it('restarts a host killed from outside on the same ports, and logs it', async () => {
    await supervisor.start();
    expect(launches[0]!.signers.map((s) => s.port)).toEqual([undefined, undefined]);
    last().die(null, 'SIGKILL');
    expect(supervisor.state).toBe('waiting');
    expect(launches).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(POLICY.minDelayMs - 1);
    expect(launches).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(launches).toHaveLength(2);
    expect(launches[1]!.signers.map((s) => s.port)).toEqual([9700, 9701]);
    expect(supervisor.state).toBe('running');
    expect(supervisor.process?.pid).toBe(last().pid);
    expect(supervisor.restarts).toBe(1);
    expect(messages()).toEqual(['devnet signer host died; restarting it', 'devnet signer host restarted']);
    expect(lines[0]).toMatchObject({ level: 40, host: 'signer host 0', signal: 'SIGKILL', restartInMs: 100, attempt: 1 });
  });

  it('supervises an avalanchego host the same way: its nodes come back on their ports (read with portsOf)', async () => {
    interface Node {
      certPem: string;
      port?: number;
    }
    const started: Node[][] = [];
    const nodes = new SignerSupervisor<Node, { type: 'ready'; nodes: { nodeId: string; port: number }[] }>({
      name: 'avalanchego host 0',
      kind: 'avalanchego',
      signers: [{ certPem: 'a' }, { certPem: 'b' }],
      launch: async (group) => {
        started.push(group);
        const child = new FakeChild();
        launches.push({ signers: [], child });
        return { child: child as unknown as ChildProcess, ready: { type: 'ready', nodes: group.map((n, i) => ({ nodeId: n.certPem, port: n.port ?? 9651 + i })) } };
      },
      portsOf: (ready) => ready.nodes.map((n) => n.port),
      policy: POLICY,
      logger: () => pino({ level: 'info' }, { write: (l: string) => lines.push(JSON.parse(l) as Record<string, any>) }),
    });
    try {
      await nodes.start();
      last().die(null, 'SIGKILL');
      await vi.advanceTimersByTimeAsync(POLICY.minDelayMs);
      await settle();
      expect(started[1]!.map((n) => n.port)).toEqual([9651, 9652]);
      expect(messages()).toEqual(['devnet avalanchego host died; restarting it', 'devnet avalanchego host restarted']);
    } finally {
      await nodes.stop(0);
    }
  });

  it('doubles the wait for each quick death up to maxDelayMs, then gives up loudly', async () => {
    await supervisor.start();
    const waits: number[] = [];
    for (let i = 0; i < POLICY.maxQuickRestarts; i++) {
      last().die(1, null);
      const wait = lines[lines.length - 1]!.restartInMs as number;
      waits.push(wait);
      await vi.advanceTimersByTimeAsync(wait);
      await settle();
      expect(supervisor.state).toBe('running');
    }
    expect(waits).toEqual([100, 200, 400]);
    expect([1, 2, 3, 4, 5, 6].map((n) => restartDelayMs(n, POLICY))).toEqual([100, 200, 400, 800, 1000, 1000]);
    last().die(1, null);
    expect(supervisor.state).toBe('gave-up');
    const error = lines[lines.length - 1]!;
    expect(error).toMatchObject({ level: 50, host: 'signer host 0', restartsInARow: 3, signers: 2 });
    expect(error.msg).toMatch(/giving up/);
    await vi.advanceTimersByTimeAsync(60_000);
    await settle();
    expect(launches).toHaveLength(1 + POLICY.maxQuickRestarts);
  });

  it('counts a restart that fails to start as a quick death', async () => {
    await supervisor.start();
    outcomes = ['fail', 'fail', 'fail'];
    last().die(null, 'SIGKILL');
    await vi.advanceTimersByTimeAsync(10_000);
    await settle();
    await vi.advanceTimersByTimeAsync(10_000);
    await settle();
    expect(supervisor.state).toBe('gave-up');
    expect(launches).toHaveLength(4);
    expect(lines.filter((l) => l.failedToStart !== undefined).map((l) => l.failedToStart)).toEqual([
      'listen EADDRINUSE: address already in use 127.0.0.1:9700',
      'listen EADDRINUSE: address already in use 127.0.0.1:9700',
      'listen EADDRINUSE: address already in use 127.0.0.1:9700',
    ]);
  });

  it('a host that stayed up for stableMs starts over from the shortest wait', async () => {
    await supervisor.start();
    for (let i = 0; i < 3; i++) {
      last().die(1, null);
      await vi.advanceTimersByTimeAsync(1_000);
      await settle();
    }
    expect(lines.filter((l) => l.restartInMs !== undefined).map((l) => l.restartInMs)).toEqual([100, 200, 400]);
    await vi.advanceTimersByTimeAsync(POLICY.stableMs);
    last().die(1, null);
    expect(supervisor.state).toBe('waiting');
    expect(lines[lines.length - 1]).toMatchObject({ restartInMs: 100, attempt: 1 });
  });

  it('restarts nothing once stopped: a pending restart is cancelled', async () => {
    await supervisor.start();
    last().die(null, 'SIGKILL');
    await supervisor.stop(0);
    await vi.advanceTimersByTimeAsync(60_000);
    await settle();
    expect(launches).toHaveLength(1);
    expect(supervisor.state).toBe('stopped');
  });

  it('a host being restarted when the devnet stops is killed as soon as it is up', async () => {
    await supervisor.start();
    outcomes = ['hold'];
    last().die(null, 'SIGKILL');
    await vi.advanceTimersByTimeAsync(POLICY.minDelayMs);
    await settle();
    expect(launches).toHaveLength(2);
    const stopped = supervisor.stop(0);
    release!();
    await stopped;
    const restarted = last();
    expect(restarted.signals).toEqual(['SIGKILL']);
    expect(restarted.signalCode).toBe('SIGKILL');
    expect(supervisor.process).toBeUndefined();
    expect(messages()).not.toContain('devnet signer host restarted');
  });

  it('stop() ends the running host with SIGTERM', async () => {
    await supervisor.start();
    const child = last();
    await supervisor.stop();
    expect(child.signals).toEqual(['SIGTERM']);
    expect(messages()).toEqual([]);
  });
});
