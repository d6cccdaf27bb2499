// The node:http server in front of the express app: the shutdown gate, the slow-client limits
// (limits.*TimeoutMs), and listening, where a failure the configuration caused is a ConfigError.
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { ConfigError, type Config } from '../config/config.js';
import { ShutdownGate } from '../server/shutdown-gate.js';

/** How often the server looks for requests past limits.headersTimeoutMs or limits.requestTimeoutMs. */
function timeoutCheckIntervalMs(limits: Config['limits']): number {
  return Math.min(1000, Math.max(50, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 10)));
}

/** The server, not yet listening, and the gate its requests pass. */
export function createHttpServer(config: Config, app: RequestListener): { server: Server; gate: ShutdownGate } {
  const gate = new ShutdownGate();
  // Node checks the headers and request timeouts only every connectionsCheckingInterval (30 s by
  // default), so a slow client would be cut up to 30 s late. Checking every second (a tenth of a
  // shorter limit) keeps each limit within a second of what is configured.
  const server = createServer({ connectionsCheckingInterval: timeoutCheckIntervalMs(config.limits) }, gate.wrap(app));
  server.headersTimeout = config.limits.headersTimeoutMs;
  server.requestTimeout = config.limits.requestTimeoutMs;
  server.keepAliveTimeout = config.limits.keepAliveTimeoutMs;
  return { server, gate };
}

/**
 * A listen failure the configuration caused (a port in use or privileged, a host that is not an
 * address of this machine or does not resolve) as the ConfigError it is; anything else as is.
 */
function listenProblem(err: unknown, config: ListenAt): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const at = `${config.host}:${config.port}`;
  const [portKey, hostKey] = config.keys ?? ['port', 'host'];
  switch (code) {
    case 'EADDRINUSE':
      return new ConfigError([`${portKey}: ${at} is already in use (EADDRINUSE)`]);
    case 'EACCES':
      return new ConfigError([`${portKey}: this process may not listen on ${at} (EACCES; ports below 1024 need privileges)`]);
    case 'EADDRNOTAVAIL':
      return new ConfigError([`${hostKey}: '${config.host}' is not an address of this machine (EADDRNOTAVAIL)`]);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return new ConfigError([`${hostKey}: '${config.host}' does not resolve to an address (${code})`]);
    default:
      return err;
  }
}

/** Where to listen, and the config keys that said so (for the ConfigError of a failure): port and host unless given. */
interface ListenAt {
  host: string;
  port: number;
  keys?: [port: string, host: string];
}

/**
 * Listens on config.host:config.port and answers the port bound (config.port 0: an ephemeral one).
 * Given `reserved` (reservePort's listener on that address), the server takes over its socket
 * instead: the port was never free in between.
 */
export async function listen(server: Server, config: ListenAt, reserved?: NetServer): Promise<number> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      const listening = (): void => {
        server.off('error', reject);
        resolve();
      };
      if (reserved) server.listen(reserved, listening);
      else server.listen(config.port, config.host, listening);
    });
  } catch (err) {
    throw listenProblem(err, config);
  }
  return (server.address() as AddressInfo).port;
}

/**
 * Binds config.host:config.port now, for a service that starts later: whoever starts other
 * listeners first (the devnet's validators, on ports the kernel picks) can then never be handed
 * this port. listen() takes the socket over; close the listener only if the service never starts.
 */
export async function reservePort(config: Pick<Config, 'host' | 'port'>): Promise<NetServer> {
  const reserved = createNetServer();
  try {
    await new Promise<void>((resolve, reject) => {
      reserved.once('error', reject);
      reserved.listen(config.port, config.host, () => {
        reserved.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    throw listenProblem(err, config);
  }
  return reserved;
}

/** Stops accepting connections; resolves once every open one has closed. */
export function stopListening(server: Server): Promise<void> {
  return new Promise<void>((resolve) => server.close(() => resolve()));
}
