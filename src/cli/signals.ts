// Shutdown signals for the long-running commands. The handlers go in before anything starts, so
// a SIGTERM that arrives while the service is still starting (an orchestrator giving up, a
// container stopped early) still ends in a graceful close and exit 0 instead of an abrupt death.

/**
 * Resolves on the first SIGINT or SIGTERM from the moment it is called. The handlers are removed
 * then, so a second signal during the graceful close ends the process at once (the default).
 */
export function firstShutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
