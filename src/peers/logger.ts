// The logging surface peers and signers need; pino loggers fit it, tests pass nothing.

export interface PeerLogger {
  info(o: object, m?: string): void;
  warn(o: object, m?: string): void;
  debug?(o: object, m?: string): void;
}

export const silentLogger: PeerLogger = {
  info() {},
  warn() {},
};
