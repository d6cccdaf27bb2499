// The service's pino logger. Request lines carry no headers or bodies (server/app.ts serializers) and
// the startup line carries a redacted config; the redaction paths below are a second line of
// defence, so an API key that some future log call passes along by accident is still censored.
import { pino, type DestinationStream, type Logger } from 'pino';

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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'warpgate' }, redact: { paths: REDACTED_PATHS, censor: hideValue } };
  return destination ? pino(options, destination) : pino(options);
}
