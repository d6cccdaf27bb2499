// The service's pino logger. Request lines carry no headers or bodies (server/app.ts serializers) and
// the configuration is logged redacted; the redaction paths below are a second line of defence, so
// an API key that some future log call passes along by accident is still censored.
//
// Two formats: JSON lines (one object a line, for log shippers: what a container or a pipe gets)
// and pretty lines for a person at a terminal (time, level, component, message, the fields left).
// `auto` picks pretty when the log's stream is a terminal.
import { pino, type DestinationStream, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';

export type LogFormat = 'auto' | 'json' | 'pretty';

const REDACTED_PATHS = [
  'apiKey',
  '*.apiKey',
  '*.*.apiKey',
  'headers.authorization',
  'headers.cookie',
  'headers["x-glacier-api-key"]',
  'headers["x-data-api-key"]',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.headers["x-glacier-api-key"]',
  '*.headers["x-data-api-key"]',
];

/** Absent stays absent (an operator can still see that no key is set); anything else is hidden. */
function hideValue(value: unknown): unknown {
  return value === null || value === undefined ? value : '[redacted]';
}

/** `auto` resolved for a log written to `stream`: pretty on a terminal, JSON elsewhere. */
export function resolveLogFormat(format: LogFormat, stream: { isTTY?: boolean }): 'json' | 'pretty' {
  if (format !== 'auto') return format;
  return stream.isTTY === true ? 'pretty' : 'json';
}

/** Fields a pretty line shows in its message (or that say nothing to a person), not after it. */
const SHOWN_IN_MESSAGE = 'pid,hostname,service,component,req,res,responseTime';

/**
 * A pretty line's message: `component: message`, and for a request line what a person scans for,
 * `POST /path → 201 in 12 ms`, instead of pino-http's "request completed" and its objects.
 */
function prettyMessage(log: Record<string, unknown>, messageKey: string): string {
  const component = typeof log.component === 'string' ? `${log.component}: ` : '';
  const req = log.req as { method?: string; url?: string } | undefined;
  const res = log.res as { statusCode?: number } | undefined;
  if (req?.method && res?.statusCode !== undefined) {
    const time = typeof log.responseTime === 'number' ? ` in ${Math.round(log.responseTime)} ms` : '';
    return `${component}${req.method} ${req.url ?? ''} → ${res.statusCode}${time}`;
  }
  return `${component}${String(log[messageKey] ?? '')}`;
}

/** pino-pretty in this process (not a transport thread: ordered with everything else, flushed before exit). */
function prettyStream(destination: DestinationStream | number, colorize: boolean): DestinationStream {
  return PinoPretty({
    destination: destination as number,
    sync: true,
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: SHOWN_IN_MESSAGE,
    singleLine: true,
    messageFormat: prettyMessage,
  });
}

/**
 * The logger at `level`, writing to `destination` (stdout when absent; 1 or 2: stdout or stderr)
 * in `format` (JSON when absent; `auto`: pretty when that stream is a terminal).
 */
export function createLogger(level: string, destination: DestinationStream | 1 | 2 = 1, format: LogFormat = 'json'): Logger {
  const options = { level, base: { service: 'warpgate' }, redact: { paths: REDACTED_PATHS, censor: hideValue } };
  const stream: { isTTY?: boolean } = destination === 1 ? process.stdout : destination === 2 ? process.stderr : (destination as { isTTY?: boolean });
  if (resolveLogFormat(format, stream) === 'pretty') {
    const colorize = stream.isTTY === true && !process.env.NO_COLOR;
    return pino(options, prettyStream(destination, colorize));
  }
  if (destination === 1) return pino(options);
  return pino(options, destination === 2 ? pino.destination(2) : destination);
}
