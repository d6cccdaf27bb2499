// What `npm pack` ships works on its own: the package is packed from a copy of the checkout (its
// prepack script compiles src/ to dist/), installed from the tarball into an empty folder with
// npm, and its `warpgate` command starts the devnet, which aggregates once and stops on SIGINT.
// The installed tree has neither tsx nor esbuild, so everything that ran (the command, the BLS
// worker threads, the signer host processes) ran compiled JavaScript. In the checkout, the
// command without a build says so, and npm start's prestart (build.mjs --if-stale) compiles only
// when the sources differ from what dist/ was built from.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNobleBackend } from '../../src/bls/noble-backend.js';
import { PChainClient } from '../../src/node/pchain.js';
import { verifySignedMessage } from '../../src/validators/verify.js';
import { parseCb58Id } from '../../src/warp/cb58.js';
import { bytesToHex, hexToBytes } from '../../src/warp/hex.js';
import { encodeAddressedCall } from '../../src/warp/payload.js';
import { newUnsignedMessage } from '../../src/warp/unsigned-message.js';
import { childrenOf, commandLineOf, copyFromCheckout, mustRun, npmEnv, ROOT, runCommand, tempDir } from './staging.js';

const work = tempDir('pack');
let devnet: ChildProcess | undefined;
afterAll(() => {
  if (devnet && devnet.exitCode === null && devnet.signalCode === null) devnet.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; files: string[]; bin: Record<string, string>; exports: Record<string, { types: string }> };

/** A copy of what `npm pack` reads in the checkout: the package's files and what builds dist/ (dependencies linked, not copied). */
function checkoutCopy(): string {
  const dir = join(work, 'checkout');
  const inputs = ['package.json', 'package-lock.json', 'README.md', 'tsconfig.json', 'tsconfig.build.json', 'scripts', 'src', ...pkg.files.filter((f) => f !== 'dist')];
  copyFromCheckout([...new Set(inputs)], dir);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

async function firstLine(child: ChildProcess, stderr: () => string, timeoutMs: number): Promise<string> {
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const until = Date.now() + timeoutMs;
  while (!stdout.includes('\n')) {
    if (child.exitCode !== null) throw new Error(`warpgate exited with ${child.exitCode}: ${stderr().slice(-3000)}`);
    if (Date.now() > until) throw new Error(`no line on stdout within ${timeoutMs} ms; stderr: ${stderr().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return stdout.slice(0, stdout.indexOf('\n'));
}

describe('npm pack', () => {
  it('packs compiled code that installs into an empty folder and runs serve, signer and devnet', async () => {
    // Not built yet: the command says what to do.
    const checkout = checkoutCopy();
    const unbuilt = await runCommand(process.execPath, ['bin/warpgate.js', 'serve'], { cwd: checkout, timeoutMs: 30_000 });
    expect(unbuilt.code).toBe(1);
    expect(unbuilt.stderr).toMatch(/dist\/ is not built: run `npm run build`/);

    // Pack: prepack compiles.
    const packed = await mustRun('npm', ['pack', '--json', '--pack-destination', work], { cwd: checkout, env: npmEnv(), timeoutMs: 180_000 });
    const [manifest] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    const shipped = manifest!.files.map((f) => f.path);
    for (const needed of ['bin/warpgate.js', 'dist/cli.js', 'dist/cli.js.map', 'dist/bls-pool/worker.js', 'dist/p2p/shard-worker.js', 'dist/devnet/signers/host.js', 'dist/devnet/avalanchego-node/host.js', 'dist/index.js', 'dist/index.d.ts', 'config.example.json', 'package.json']) {
      expect(shipped).toContain(needed);
    }
    // No sources, tests or development files: the compiled code is the package.
    expect(shipped.filter((p) => /^(src|test|bench|scripts)\/|\.ts$/.test(p) && !p.endsWith('.d.ts'))).toEqual([]);

    // npm start's prestart: nothing to do while dist/ matches the sources; a changed source is compiled again.
    const ifStale = (): Promise<{ stderr: string }> => mustRun(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: checkout, timeoutMs: 180_000 });
    expect((await ifStale()).stderr).toBe('');
    appendFileSync(join(checkout, 'src', 'cli.ts'), '\n// changed after the build\n');
    expect((await ifStale()).stderr).toContain('compiled src/ to dist/');
    expect(readFileSync(join(checkout, 'dist', 'cli.js'), 'utf8')).toContain('// changed after the build');
    expect((await ifStale()).stderr).toBe('');

    // Install from the tarball into an empty folder.
    const app = join(work, 'app');
    mkdirSync(app);
    await mustRun('npm', ['install', '--no-save', '--omit=dev', join(work, manifest!.filename)], { cwd: app, env: npmEnv(), timeoutMs: 240_000 });
    const installed = readdirSync(join(app, 'node_modules'));
    expect(installed).toContain(pkg.name);
    expect(installed.filter((name) => name === 'tsx' || name === 'esbuild' || name === 'typescript')).toEqual([]);
    const command = join(app, 'node_modules', '.bin', 'warpgate');

    // The public API and its declarations.
    const api = await mustRun(process.execPath, ['--input-type=module', '-e', `const m = await import('${pkg.name}'); console.log(JSON.stringify([typeof m.startService, typeof m.loadConfig, typeof m.Aggregator, typeof m.parseUnsignedMessage, typeof m.verifySignedMessage]))`], {
      cwd: app,
      timeoutMs: 30_000,
    });
    expect(JSON.parse(api.stdout)).toEqual(['function', 'function', 'function', 'function', 'function']);
    expect(existsSync(join(app, 'node_modules', pkg.name, pkg.exports['.']!.types))).toBe(true);

    for (const sub of ['serve', 'signer', 'devnet']) {
      const help = await mustRun(command, [sub, '--help'], { cwd: app, timeoutMs: 30_000 });
      expect(help.stdout).toMatch(new RegExp(`usage: warpgate ${sub}`));
    }

    // The devnet from the installed command: one aggregation, then SIGINT. Its avalanchego nodes
    // are reached from an I/O shard, so the compiled shard worker runs too.
    let stderr = '';
    devnet = spawn(command, ['devnet', '--json', '--port', '0', '--validators', '4', '--io-shards', '1'], { cwd: app, env: npmEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    devnet.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = once(devnet, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const info = JSON.parse(await firstLine(devnet, () => stderr, 90_000)) as { url: string; networkId: number; blockchainId: string; subnetId: string; pchainUrl: string; p2p: unknown[] };
    // Its avalanchego nodes connected through the compiled shard worker (/ready reads the shard's reports).
    expect(info.p2p.length).toBeGreaterThan(0);
    const p2pReady = async (): Promise<{ connected: number; ioShards: number }> => ((await (await fetch(`${info.url}/ready`)).json()) as { peers: { p2p: { connected: number; ioShards: number } } }).peers.p2p;
    for (const until = Date.now() + 30_000; (await p2pReady()).connected < info.p2p.length && Date.now() < until; ) await new Promise((r) => setTimeout(r, 100));
    expect(await p2pReady()).toMatchObject({ connected: info.p2p.length, ioShards: 1 });

    // Its validator hosts (signers and avalanchego nodes: the devnet mixes both) run the installed
    // package's compiled hosts, without tsx.
    const hosts = childrenOf(devnet.pid!).map(commandLineOf);
    const hostOf = (argv: string[]): string | undefined =>
      ['signers', 'avalanchego-node'].find((kind) => argv.join(' ').includes(join('node_modules', pkg.name, 'dist', 'devnet', kind, 'host.js')));
    expect(new Set(hosts.map(hostOf))).toEqual(new Set(['signers', 'avalanchego-node']));
    for (const argv of hosts) expect(argv.join(' ')).not.toMatch(/tsx/);

    const unsigned = newUnsignedMessage(info.networkId, parseCb58Id(info.blockchainId), encodeAddressedCall(new Uint8Array(20), new TextEncoder().encode('from the packed package')));
    const res = await fetch(`${info.url}/v1/signatureAggregator/fuji/aggregateSignatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: bytesToHex(unsigned.bytes) }),
      signal: AbortSignal.timeout(20_000),
    });
    expect(res.status).toBe(201);
    const { signedMessage } = (await res.json()) as { signedMessage: string };
    const validators = await new PChainClient({ nodeBaseUrl: info.pchainUrl }).getCurrentValidators(parseCb58Id(info.subnetId));
    expect(verifySignedMessage(hexToBytes(signedMessage), validators, 67, info.networkId, createNobleBackend()).valid).toBe(true);

    devnet.kill('SIGINT');
    const timer = setTimeout(() => devnet?.kill('SIGKILL'), 20_000);
    const [code, signal] = await exited;
    clearTimeout(timer);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
  }, 420_000);
});
