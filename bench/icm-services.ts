// The real icm-services signature-aggregator, the bench's `icmServices` strategy: built on demand
// from interop/icm (its own Go module, pinned to a release commit; not in CI), configured and
// started as a separate process against the bench's P-Chain and simulated avalanchego nodes,
// and measured from outside: its CPU (all threads) and resident memory from /proc.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { packagePath } from '../src/util/ts-runtime.js';
import { BenchScenarioError } from './scenario.js';

export const ICM_MODULE_DIR = packagePath('interop/icm');
const SOURCE_DIR = join(ICM_MODULE_DIR, '.src');
const BINARY = join(ICM_MODULE_DIR, '.build', 'signature-aggregator');
const MAIN_PACKAGE = 'github.com/ava-labs/icm-services/signature-aggregator/main';
/** The signature cache icm-services keeps by default (config.DefaultSignatureCacheSize). */
const SIGNATURE_CACHE_SIZE = 1024 * 1024;

export interface IcmServicesVersions {
  /** The icm-services commit built (the release's, from interop/icm/go.mod). */
  icmServicesCommit: string;
  /** The avalanchego and Go the binary was built with (go version -m). */
  avalanchego: string;
  go: string;
}

/** The commit the module pins: the last 12 hex digits of the required pseudo-version. */
export function pinnedCommit(goMod: string): string {
  const m = /^(?:require)?\s*github\.com\/ava-labs\/icm-services (v\S*\d{14}-([0-9a-f]{12}))\b/m.exec(goMod);
  if (!m) throw new BenchScenarioError('interop/icm/go.mod requires no pseudo-version of github.com/ava-labs/icm-services');
  return m[2]!;
}

/** What `go version -m BINARY` says of the Go and avalanchego it was built with. */
export function versionsOf(goVersionM: string, commit: string): IcmServicesVersions {
  const go = /^\S+: (go\S+)$/m.exec(goVersionM)?.[1] ?? 'unknown';
  const avalanchego = /^\s+dep\s+github\.com\/ava-labs\/avalanchego\s+(\S+)/m.exec(goVersionM)?.[1] ?? 'unknown';
  return { icmServicesCommit: commit, avalanchego, go };
}

/**
 * The binary, built first when it is missing or older than go.mod / go.sum. The module proxy this
 * project reaches refuses github.com/ava-labs/icm-services, so go.mod replaces it with a checkout
 * of the pinned commit in interop/icm/.src (interop/icm/fetch-source.sh makes one).
 */
export function ensureIcmServices(log: (line: string) => void): { binary: string; versions: IcmServicesVersions; buildSeconds?: number } {
  const goMod = readFileSync(join(ICM_MODULE_DIR, 'go.mod'), 'utf8');
  const commit = pinnedCommit(goMod);
  const marker = join(SOURCE_DIR, '.commit');
  const checkedOut = existsSync(marker) ? readFileSync(marker, 'utf8').trim() : undefined;
  if (!checkedOut || !checkedOut.startsWith(commit)) {
    throw new BenchScenarioError(
      `icmServices: interop/icm/.src holds ${checkedOut ? `commit ${checkedOut}` : 'no icm-services checkout'}, not ${commit}: ` +
        'run interop/icm/fetch-source.sh (ICM_SERVICES_GIT=<a clone or mirror of github.com/ava-labs/icm-services> where GitHub is out of reach)',
    );
  }
  const newest = Math.max(statSync(join(ICM_MODULE_DIR, 'go.mod')).mtimeMs, statSync(join(ICM_MODULE_DIR, 'go.sum')).mtimeMs, statSync(marker).mtimeMs);
  let buildSeconds: number | undefined;
  if (!existsSync(BINARY) || statSync(BINARY).mtimeMs < newest) {
    log(`icmServices: building icm-services ${commit} (interop/icm; a cold build takes minutes)`);
    const started = performance.now();
    mkdirSync(join(ICM_MODULE_DIR, '.build'), { recursive: true });
    const built = spawnSync('go', ['build', '-pgo=off', '-o', BINARY, MAIN_PACKAGE], {
      cwd: ICM_MODULE_DIR,
      // blst's portable build: the machine that runs it may lack the build machine's instructions.
      env: { ...process.env, CGO_ENABLED: '1', CGO_CFLAGS: '-O2 -D__BLST_PORTABLE__' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (built.error || built.status !== 0) throw new BenchScenarioError(`icmServices: go build failed (${built.error?.message ?? `exit ${built.status}`})`);
    buildSeconds = Math.round((performance.now() - started) / 100) / 10;
    log(`icmServices: built in ${buildSeconds} s`);
  }
  const v = spawnSync('go', ['version', '-m', BINARY], { encoding: 'utf8' });
  return { binary: BINARY, versions: versionsOf(v.stdout ?? '', commit), ...(buildSeconds === undefined ? {} : { buildSeconds }) };
}

/** A free TCP port on every interface (icm-services binds its API and metrics ports there). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface IcmServicesConfigInput {
  pchainUrl: string;
  subnetIdCb58: string;
  peers: readonly { nodeId: string; port: number }[];
  apiPort: number;
  metricsPort: number;
  tlsCertPath: string;
  tlsKeyPath: string;
}

/** The JSON config icm-services reads (signature-aggregator/config/config.go). */
export function icmServicesConfig(c: IcmServicesConfigInput): Record<string, unknown> {
  return {
    'log-level': 'warn',
    'p-chain-api': { 'base-url': c.pchainUrl },
    'info-api': { 'base-url': c.pchainUrl },
    'api-port': c.apiPort,
    'metrics-port': c.metricsPort,
    // Every validator listens on 127.0.0.1.
    'allow-private-ips': true,
    'tracked-subnet-ids': [c.subnetIdCb58],
    // The same knowledge of the validators as warpgate's (info.peers): every node's address.
    'manually-tracked-peers': c.peers.map((p) => ({ id: p.nodeId, ip: `127.0.0.1:${p.port}` })),
    'signature-cache-size': SIGNATURE_CACHE_SIZE,
    'tls-cert-path': c.tlsCertPath,
    'tls-key-path': c.tlsKeyPath,
  };
}

/** CPU (user + system, all threads) and memory of a running process, from /proc. */
export interface ProcSample {
  cpuMs: number;
  rssBytes: number;
  peakRssBytes: number;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux.

export function procSample(pid: number): ProcSample {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces), from field 3 (state) on.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuMs = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { cpuMs, rssBytes: kb('VmRSS'), peakRssBytes: kb('VmHWM') };
}

export class IcmServicesProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    private readonly exited: Promise<void>,
  ) {}

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  static start(binary: string, configPath: string, config: Record<string, unknown>, logPath: string): IcmServicesProcess {
    writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
    const log = createWriteStream(logPath);
    const child = spawn(binary, ['--config-file', configPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return new IcmServicesProcess(child, `http://127.0.0.1:${String(config['api-port'])}`, exited);
  }

  /** GET /health: 200 once the connected stake of every tracked subnet reaches the default quorum. */
  async healthy(): Promise<boolean> {
    try {
      return (await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(5_000) })).status === 200;
    } catch {
      return false;
    }
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}
