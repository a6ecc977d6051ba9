import pino, { type DestinationStream, type Logger } from 'pino';

/** Fields that hold credentials or card data, wherever they appear in a logged object. */
export const SENSITIVE_FIELDS = [
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
] as const;

/**
 * What pino's redaction removes: request headers, and the sensitive fields at the top level of
 * a line. The same fields one level down (`{ body: { cvc } }`) are removed by `withoutSecrets`
 * below: pino's `*.field` wildcards cost more than the rest of a request's log line together
 * (decision 0180), and a hand check of a few own keys costs almost nothing.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  ...SENSITIVE_FIELDS,
];

const CENSOR = '[redacted]';

/**
 * Credentials a URL may carry, by mistake (a secret key or signing secret pasted into a query
 * string) or by design (a challenge token lets its holder finish a payment's 3-D Secure step;
 * a client_secret pays its intent): logged URLs keep only their prefix.
 */
const URL_CREDENTIALS = /\b(chl_|sk_|whsec_)[0-9A-Za-z+/=%]+|(_secret_)[0-9A-Za-z]+/g;
const redactText = (text: string) =>
  text.replace(URL_CREDENTIALS, (_all, prefix?: string, secret?: string) => `${prefix ?? secret}[redacted]`);

/** Percent-decoding until nothing changes, at most 4 times: `%2520` is a space too. */
function decoded(text: string): string {
  let out = text;
  for (let i = 0; i < 4; i++) {
    let next: string;
    try {
      next = decodeURIComponent(out);
    } catch {
      return out;
    }
    if (next === out) return out;
    out = next;
  }
  return out;
}

/**
 * A URL as logged. A percent-encoded credential (`?authorization=Bearer%20sk_…`, `%22sk_…`)
 * hides from the pattern (`\b` finds no boundary after the hex digit): when the URL has
 * encodings, the path and every query name and value are decoded before the pattern runs, and
 * a part holding a credential is logged decoded, its credential redacted.
 */
export const redactUrl = (url: string): string => {
  if (!url.includes('%')) return redactText(url);
  return url.replace(/[^?&=]+/g, (part) => {
    const clear = decoded(part);
    const redacted = redactText(clear);
    return redacted === clear ? part : redacted;
  });
};

/** A copy of `value` without its sensitive fields, or `value` itself when it has none. */
function censored(value: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const field of SENSITIVE_FIELDS) {
    if (!Object.hasOwn(value, field)) continue;
    out ??= { ...value };
    out[field] = CENSOR;
  }
  return out ?? value;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Error);

/**
 * Every `url` and `req.url` of a log line without its tokens, and every object one level down
 * without its sensitive fields (the top level is pino's redaction). Returns the line itself
 * when there is nothing to remove: this runs for every line.
 */
function withoutSecrets(object: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key in object) {
    const value = object[key];
    if (!isPlainObject(value)) continue;
    const clean = key === 'req' ? withoutUrlTokens(value) : censored(value);
    if (clean === value) continue;
    out ??= { ...object };
    out[key] = clean;
  }
  if (typeof object.url === 'string') {
    const url = redactUrl(object.url);
    if (url !== object.url) {
      out ??= { ...object };
      out.url = url;
    }
  }
  return out ?? object;
}

/** A request object as logged: its method and URL, tokens removed. */
function withoutUrlTokens(req: Record<string, unknown>): Record<string, unknown> {
  return typeof req.url === 'string' ? { method: req.method, url: redactUrl(req.url) } : censored(req);
}

/** Lines wait in memory until this many characters are queued, or `FLUSH_EVERY_MS` has passed. */
const BATCH_LENGTH = 8 * 1024;
const FLUSH_EVERY_MS = 200;

/**
 * Logs to `destination`, or to stdout asynchronously in batches: under load one write carries
 * dozens of lines instead of one system call per request (decision 0180), and a quiet server's
 * lines still appear within `FLUSH_EVERY_MS`. pino flushes what is left when the process exits.
 */
export function createLogger(level = 'info', destination?: DestinationStream): Logger {
  const sink = destination ?? batchedStdout();
  return pino(
    {
      level,
      base: { service: 'obolus' },
      redact: { paths: REDACT_PATHS, censor: CENSOR },
      formatters: { log: withoutSecrets },
      timestamp: isoTime,
    },
    sink,
  );
}

/**
 * Lines are joined here into batches of `BATCH_LENGTH` and each batch goes to sonic-boom in one
 * write. sonic-boom's own batching (`minLength`) measured its whole text batch again on every
 * line appended, and turning each line into a Buffer instead cost 4 µs a line; a batch joined
 * here is flattened once (decision 0184). When the process ends, listeners put in front of
 * pino's own hand what is still here to the stream, which pino's then write out.
 */
function batchedStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false });
  let batch = '';
  const release = () => {
    if (batch === '') return;
    stream.write(batch);
    batch = '';
  };
  setInterval(release, FLUSH_EVERY_MS).unref();
  // pino flushes and ends the stream on `beforeExit` (the event loop ran dry) and writes it out
  // synchronously on `exit` (process.exit): what is still batched here goes to it first.
  process.prependListener('beforeExit', release);
  process.prependListener('exit', release);
  return {
    write(line: string) {
      batch += line;
      if (batch.length >= BATCH_LENGTH) release();
    },
    flush(cb?: (error?: Error) => void) {
      release();
      stream.flush(cb);
    },
    flushSync() {
      release();
      stream.flushSync();
    },
  } as DestinationStream;
}

let isoMs = -1;
let isoText = '';

/** pino's `isoTime`, formatted once per millisecond: under load many lines share one. */
export function isoTime(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    isoText = `,"time":"${new Date(now).toISOString()}"`;
  }
  return isoText;
}

/** What an answered request logs (its `request completed` line). */
export interface RequestCompleted {
  method: string;
  url: string;
  status: number;
  ms: number;
}

/**
 * The `request completed` line, exactly as `log.info(fields, 'request completed')` would write
 * it through `log` (a request's child logger: its bindings, time and stream), but formatted
 * here: pino's general path (a loop over the fields, the formatter, redaction of fields this
 * line never has) cost more than the rest of a read's bookkeeping (decision 0184). The URL is
 * the one field that can carry a credential: it is redacted as in every other line.
 */
export function logRequestCompleted(log: Logger, level: 'debug' | 'info', line: RequestCompleted): void {
  if (!log.isLevelEnabled(level)) return;
  const own = log as unknown as Record<symbol, unknown>;
  const time = own[pino.symbols.timeSym] as () => string;
  const bindings = own[pino.symbols.chindingsSym] as string;
  const stream = own[pino.symbols.streamSym] as DestinationStream;
  stream.write(
    `{"level":${log.levels.values[level]}${time()}${bindings},"method":${JSON.stringify(line.method)},"url":${JSON.stringify(redactUrl(line.url))},"status":${line.status},"ms":${line.ms},"msg":"request completed"}\n`,
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
