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

export function createLogger(level = 'info', destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'obolus' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
