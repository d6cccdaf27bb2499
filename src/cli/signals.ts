// Shutdown signals for the long-running commands. The handlers go in before anything starts, so
// a SIGTERM that arrives while the service is still starting (an orchestrator giving up, a
// container stopped early) still ends in a graceful close and exit 0 instead of an abrupt death.

/** The exit status of a process ended by `signal`, as a shell reports it (128 + its number). */
function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (signal === 'SIGINT' ? 2 : 15);
}

/**
 * Resolves on the first SIGINT or SIGTERM from the moment it is called; the caller then closes
 * gracefully (aggregations in flight finish). A second signal during that close ends the
 * process at once, with 130 (SIGINT) or 143 (SIGTERM): a person pressing Ctrl-C twice wants out
 * now. The hosts of a devnet stop on their own when their parent is gone (host-serve.ts).
 */
export function firstShutdownSignal(onSecond?: (signal: NodeJS.Signals) => void): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let first: NodeJS.Signals | undefined;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (first === undefined) {
        first = signal;
        resolve(signal);
        return;
      }
      onSecond?.(signal);
      process.exit(signalExitCode(signal));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
