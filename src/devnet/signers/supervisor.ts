// Keeps one devnet host process alive for the devnet's lifetime: a signer host (signers/host.ts)
// or an avalanchego host (avalanchego-node/host.ts). A host that dies is started again on the
// same ports (the service keeps redialing those) after a wait that doubles
// with each death that came soon after a start, up to a cap; a host that lived for a while
// before dying starts over from the shortest wait. A host that keeps dying right after every
// start is given up on, loudly. Stopping the supervisor ends restarts for good.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { Logger } from 'pino';
import type { HostedSigner, SignerHostReady } from './protocol.js';

export interface RestartPolicy {
  /** Wait before the first restart; doubles with each quick death. */
  minDelayMs: number;
  /** The longest wait between restarts. */
  maxDelayMs: number;
  /** A host that dies sooner than this after being ready (or fails to start) died quickly. */
  stableMs: number;
  /** Restarts tried in a row while the host keeps dying quickly; the next quick death gives up. */
  maxQuickRestarts: number;
}

const DEFAULT_RESTART_POLICY: RestartPolicy = { minDelayMs: 250, maxDelayMs: 10_000, stableMs: 10_000, maxQuickRestarts: 5 };

/** Starts a host process for these signers (or nodes); rejects (having ended the process) when it fails to become ready. */
export type LaunchHost<H = HostedSigner, R = SignerHostReady> = (signers: H[]) => Promise<{ child: ChildProcess; ready: R }>;

type SupervisorState = 'starting' | 'running' | 'waiting' | 'stopped' | 'gave-up';

interface SignerSupervisorOptions<H, R> {
  /** Names the host in log lines. */
  name: string;
  /** What the host runs, in log lines ("devnet <kind> host died"); default 'signer'. */
  kind?: string;
  signers: H[];
  launch: LaunchHost<H, R>;
  /** The port each of `signers` listens on, from the ready message; default a signer host's. */
  portsOf?: (ready: R) => number[];
  policy?: Partial<RestartPolicy>;
  /** Read at each log line: the devnet's logger may only exist once its service has started. */
  logger: () => Logger;
  now?: () => number;
}

/** The wait before the `attempt`th restart in a row (1 = the first). */
export function restartDelayMs(attempt: number, policy: RestartPolicy): number {
  return Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
}

const signerPorts = (ready: unknown): number[] => (ready as SignerHostReady).signers.map((s) => s.port);

export class SignerSupervisor<H extends { port?: number } = HostedSigner, R = SignerHostReady> {
  private readonly policy: RestartPolicy;
  private readonly now: () => number;
  private child: ChildProcess | undefined;
  private ports: number[] | undefined;
  private readyAt = 0;
  /** Restarts in a row, each followed by a quick death; reset by a host that stayed up. */
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The restart under way (it never rejects); stop() waits for it. */
  private launching: Promise<void> | undefined;
  private current: SupervisorState = 'starting';
  /** Restarts that brought the host back. */
  restarts = 0;

  constructor(private readonly opts: SignerSupervisorOptions<H, R>) {
    this.policy = { ...DEFAULT_RESTART_POLICY, ...opts.policy };
    this.now = opts.now ?? Date.now;
  }

  get state(): SupervisorState {
    return this.current;
  }

  /** The running host process, if any. */
  get process(): ChildProcess | undefined {
    return this.child;
  }

  /** The first start: its failure is the caller's (the devnet does not come up), not a restart. */
  async start(): Promise<R> {
    const { child, ready } = await this.opts.launch(this.opts.signers);
    if (this.current === 'stopped') {
      await endProcess(child, 'SIGKILL', 0);
      throw new Error(`${this.opts.name} was stopped while it started`);
    }
    this.ports = (this.opts.portsOf ?? signerPorts)(ready);
    this.adopt(child);
    return ready;
  }

  /** No more restarts; ends the running host (SIGTERM, then SIGKILL after `graceMs`). */
  async stop(graceMs = 5_000): Promise<void> {
    this.current = 'stopped';
    clearTimeout(this.timer);
    // A host being started now is ended by restart() as soon as it is up; wait for that.
    await this.launching;
    await endProcess(this.child, 'SIGTERM', graceMs);
  }

  /** No more restarts, and the host killed at once: how tests take its stake offline for good. */
  async kill(): Promise<void> {
    this.current = 'stopped';
    clearTimeout(this.timer);
    await this.launching;
    await endProcess(this.child, 'SIGKILL', 0);
  }

  private adopt(child: ChildProcess): void {
    this.child = child;
    this.readyAt = this.now();
    this.current = 'running';
    if (child.exitCode !== null || child.signalCode !== null) {
      queueMicrotask(() => this.died(child, child.exitCode, child.signalCode));
    } else {
      child.once('exit', (code, signal) => this.died(child, code, signal));
    }
  }

  private died(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (child !== this.child) return;
    this.child = undefined;
    if (this.current === 'stopped') return;
    const livedMs = this.now() - this.readyAt;
    this.scheduleRestart({ code, signal, livedMs }, livedMs < this.policy.stableMs);
  }

  private scheduleRestart(why: Record<string, unknown>, quick: boolean): void {
    const log = this.opts.logger();
    if (quick && this.attempt >= this.policy.maxQuickRestarts) {
      this.current = 'gave-up';
      log.error(
        { host: this.opts.name, ...why, restartsInARow: this.attempt, signers: this.opts.signers.length },
        `devnet ${this.opts.kind ?? 'signer'} host keeps dying right after each start; giving up on it (its validators stay offline)`,
      );
      return;
    }
    this.attempt = quick ? this.attempt + 1 : 1;
    const delayMs = restartDelayMs(this.attempt, this.policy);
    this.current = 'waiting';
    log.warn({ host: this.opts.name, ...why, restartInMs: delayMs, attempt: this.attempt }, `devnet ${this.opts.kind ?? 'signer'} host died; restarting it`);
    this.timer = setTimeout(() => {
      this.launching = this.restart();
    }, delayMs);
  }

  private async restart(): Promise<void> {
    if (this.current !== 'waiting') return;
    this.current = 'starting';
    const ports = this.ports;
    const signers = this.opts.signers.map((s, i) => ({ ...s, port: ports?.[i] }));
    let launched: { child: ChildProcess; ready: R };
    try {
      launched = await this.opts.launch(signers);
    } catch (err) {
      if (this.current !== 'starting') return;
      this.scheduleRestart({ failedToStart: err instanceof Error ? err.message : String(err) }, true);
      return;
    }
    // Stopped while it was starting: it must not outlive the devnet.
    if (this.current !== 'starting') {
      await endProcess(launched.child, 'SIGKILL', 0);
      return;
    }
    this.restarts++;
    this.adopt(launched.child);
    this.opts.logger().info({ host: this.opts.name, restarts: this.restarts, pid: launched.child.pid }, `devnet ${this.opts.kind ?? 'signer'} host restarted`);
  }
}

/** Sends `signal`, and SIGKILL after `graceMs`; resolves once the process has exited. */
async function endProcess(child: ChildProcess | undefined, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = signal === 'SIGKILL' ? undefined : setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
