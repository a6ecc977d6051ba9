import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * What must never reach a log line: credentials and card data. Paths cover request
 * headers and any object logged with card fields, at the top level or one level down.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  ...[
    'card',
    'number',
    'pan',
    'cvc',
    'exp_month',
    'exp_year',
    'client_secret',
    'secret_key',
    'secretKey',
    'jwe',
  ].flatMap((field) => [field, `*.${field}`]),
];

/**
 * Logs to `destination`, or to stdout through a 4 KB buffer: a synchronous write per
 * request line costs more than the request itself under load. The buffer is flushed when
 * the process exits (pino's destination does so on exit and on SIGTERM via serve's close).
 */
export function createLogger(level = 'info', destination?: DestinationStream): Logger {
  const sink = destination ?? pino.destination({ dest: 1, sync: false, minLength: 4096 });
  return pino(
    {
      level,
      base: { service: 'obolus' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    sink,
  );
}
