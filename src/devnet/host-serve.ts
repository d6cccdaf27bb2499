// The child side of a devnet host process (signers/host.ts, avalanchego-node/host.ts; the parent
// side is host-launch.ts): wait for the one `start` message, start what it asks for, answer with
// its `ready` message, or with `failed` and exit 1. SIGTERM, SIGINT, a `stop` message or losing
// the parent closes everything started and exits 0, so no host outlives its devnet.

/** What a host answers `start` with when it could not start (it exits 1 after sending it). */
export interface HostFailed {
  type: 'failed';
  reason: string;
}

/** Something a host runs and must close on the way out. */
export interface Closable {
  close(): Promise<void>;
}

/**
 * Serves this process as a host: `start` starts what the message asks for, pushing each thing
 * into `running` as soon as it exists, so a failure halfway still closes the ones started.
 */
export function serveHost<S extends { type: 'start' }, R extends { type: 'ready' }>(start: (msg: S, running: Closable[]) => Promise<R>): void {
  const running: Closable[] = [];
  let stopping = false;
  const closeAll = async (): Promise<void> => {
    await Promise.allSettled(running.map((r) => r.close()));
  };
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await closeAll();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  // The parent going away must not leave hosted validators behind.
  process.on('disconnect', () => void stop());
  process.on('message', (msg: S | { type: 'stop' }) => {
    if (msg.type === 'stop') return void stop();
    start(msg, running).then(
      (ready) => process.send?.(ready),
      async (err: unknown) => {
        await closeAll();
        const failed: HostFailed = { type: 'failed', reason: err instanceof Error ? err.message : String(err) };
        if (process.send) process.send(failed, () => process.exit(1));
        else process.exit(1);
      },
    );
  });
}
