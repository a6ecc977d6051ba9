/** One load: autocannon against one URL, a warm-up first, reduced to the figures the report shows. */
import autocannon from 'autocannon';

export const CONNECTIONS = 50;

export interface Measured {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  p999_ms: number;
  errors: number;
  requests: number;
  /** When the measured load ran, in microseconds of the monotonic clock CPU profiles use. */
  window_us: [number, number];
}

export interface LoadPlan {
  /** Seconds of load measured, after `warmup` seconds not measured. */
  seconds: number;
  warmup: number;
}

/** One request of a series: its own body and headers. */
export interface NextRequest {
  body: string;
  headers?: Record<string, string>;
}

/**
 * `requests`, when given, sends each request its own body and headers (e.g. a confirm per
 * intent) and stops when they run out; otherwise the same request repeats for `plan.seconds`.
 */
export async function measure(
  label: string,
  options: autocannon.Options,
  plan: LoadPlan,
  requests?: () => NextRequest | undefined,
): Promise<Measured> {
  process.stderr.write(`  ${label.padEnd(58)}`);
  const base = { ...options, connections: CONNECTIONS };
  if (!requests && plan.warmup > 0) {
    await autocannon({ ...base, duration: plan.warmup });
    await drain(options);
  }
  const started = monotonicMicros();
  let lastResponse = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon(
      {
        ...base,
        duration: plan.seconds,
        ...(requests ? { requests: [{ setupRequest: (req: { headers?: object }) => withNext(req, requests()) }] } : {}),
      } as autocannon.Options,
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    run.on('response', () => {
      lastResponse = monotonicMicros();
    });
  });
  // From the first request to the last answer: autocannon ends a run on its next one-second tick,
  // so a run of `amount` requests (confirm) that took a fraction of a second was counted as a whole one.
  const ended = lastResponse;
  const seconds = (ended - started) / 1e6;
  const measured: Measured = {
    rps: Math.round(result.requests.total / seconds),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    p999_ms: (result.latency as unknown as Record<string, number>).p99_9 ?? result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
    requests: result.requests.total,
    window_us: [started, ended],
  };
  process.stderr.write(`${String(measured.rps).padStart(7)} req/s  p99 ${measured.p99_ms} ms\n`);
  return measured;
}

const withNext = (req: { headers?: object }, next: NextRequest | undefined) =>
  next ? { ...req, body: next.body, headers: { ...req.headers, ...next.headers } } : { ...req, body: '{}' };

/**
 * The warm-up ends with requests still in the server; one more request, queued behind
 * them, returns when they are done, so they do not count against the measured seconds.
 */
async function drain(options: autocannon.Options): Promise<void> {
  const init: RequestInit = { method: options.method ?? 'GET', headers: options.headers as Record<string, string> };
  if (options.body) init.body = options.body as string;
  await (await fetch(options.url, init)).arrayBuffer();
}

/** process.hrtime's clock, which V8's CPU profiles also use for their timestamps. */
const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);
