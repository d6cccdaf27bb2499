// A real Redis for a test: Debian's redis-server, started on a free loopback port with no
// persistence (or, with `dataDir`, an append-only file there that a restart reads back), and
// stopped by the test. Never one already running. Without redis-server the
// test fails and says how to install it (.ci/run does): a missing server is not a pass.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, connect } from 'node:net';

export interface TestRedis {
  port: number;
  /** redis://[:password@]127.0.0.1:port */
  url: string;
  /** Stops it (SIGTERM, then SIGKILL); the data is gone unless it has a dataDir. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty, or with its dataDir's AOF read back). */
  restart(): Promise<void>;
  /** One command through redis-cli, its output trimmed. */
  cli(...args: string[]): string;
}

export function redisServerPath(): string {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  if (found.status !== 0 || path === '') {
    throw new Error("redis-server was not found: these tests need Debian's redis-server (apt-get install redis-server; .ci/run installs it)");
  }
  return path;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    // +PONG, or -NOAUTH when a password is set: either way it is up.
    socket.once('data', (d) => {
      socket.destroy();
      resolve(/^(\+PONG|-NOAUTH)/.test(d.toString()));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export async function startRedis(opts: { password?: string; dataDir?: string } = {}): Promise<TestRedis> {
  const binary = redisServerPath();
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = '';
  const launch = async (): Promise<void> => {
    const persistence = opts.dataDir ? ['--dir', opts.dataDir, '--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--daemonize', 'no', '--protected-mode', 'yes'];
    if (opts.password) args.push('--requirepass', opts.password);
    child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    const deadline = Date.now() + 15_000;
    while (!(await answersPing(port))) {
      if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}):\n${log}`);
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port} within 15 s:\n${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async (): Promise<void> => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = once(c, 'exit');
    c.kill('SIGTERM');
    const timer = setTimeout(() => c.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  await launch();
  const auth = opts.password ? `:${encodeURIComponent(opts.password)}@` : '';
  return {
    port,
    url: `redis://${auth}127.0.0.1:${port}`,
    stop,
    restart: async () => {
      await stop();
      await launch();
    },
    cli: (...args) => {
      const out = spawnSync('redis-cli', ['-p', String(port), ...(opts.password ? ['-a', opts.password, '--no-auth-warning'] : []), ...args], { encoding: 'utf8', timeout: 10_000 });
      if (out.status !== 0) throw new Error(`redis-cli ${args.join(' ')}: ${out.stderr}`);
      return out.stdout.trim();
    },
  };
}
