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
 * Credentials a URL may carry, by mistake (a secret key or signing secret pasted into a query
 * string) or by design (a challenge token lets its holder finish a payment's 3-D Secure step;
 * a client_secret pays its intent): logged URLs keep only their prefix.
 */
const URL_CREDENTIALS = /\b(chl_|sk_|whsec_)[0-9A-Za-z+/=%]+|(_secret_)[0-9A-Za-z]+/g;
export const redactUrl = (url: string) =>
  url.replace(URL_CREDENTIALS, (_all, prefix?: string, secret?: string) => `${prefix ?? secret}[redacted]`);

/** Every `url` and `req.url` of a log line, tokens removed. */
function withoutTokens(object: Record<string, unknown>): Record<string, unknown> {
  const req = object.req as { url?: unknown; method?: unknown } | undefined;
  const reqUrl = typeof req?.url === 'string' ? req.url : null;
  if (typeof object.url !== 'string' && reqUrl === null) return object;
  const out = { ...object };
  if (typeof object.url === 'string') out.url = redactUrl(object.url);
  if (reqUrl !== null) out.req = { method: req?.method, url: redactUrl(reqUrl) };
  return out;
}

/**
 * Logs to `destination`, or to stdout asynchronously: lines written while a write is in
 * flight go out together in the next one, instead of one blocking write per request line.
 * Nothing waits for a buffer to fill, so a quiet server's lines still appear at once.
 */
export function createLogger(level = 'info', destination?: DestinationStream): Logger {
  const sink = destination ?? pino.destination({ dest: 1, sync: false });
  return pino(
    {
      level,
      base: { service: 'obolus' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { log: withoutTokens },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    sink,
  );
}

/**
 * Text for a human (the start-up banner) through the log's own stream: the stream is
 * asynchronous, so writing to stdout directly would jump ahead of lines still queued.
 */
export function writeAfterLogs(logger: Logger, text: string): void {
  const stream = (logger as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym];
  stream?.write(text);
}
