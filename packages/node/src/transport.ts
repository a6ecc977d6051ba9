import { errorFromResponse, ObolusError } from './errors.ts';

export interface TransportOptions {
  timeoutMs: number;
  maxRetries: number;
  /** First backoff delay; each retry doubles it (with jitter), up to maxDelayMs. */
  retryBaseDelayMs: number;
  maxDelayMs: number;
  fetch: typeof fetch;
}

export interface RequestOptions {
  /** POST only; generated when not given, and the same on every retry of this call. */
  idempotencyKey?: string;
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
}

type Query = Record<string, string | number | boolean | undefined>;

type Outcome =
  | {
      kind: 'answer';
      ok: boolean;
      status: number;
      body: unknown;
      requestId: string | undefined;
      /** The code the transactions surface gives in a header, its body being `{"error": "…"}`. */
      errorCode: string | undefined;
      retryAfter: string | null;
    }
  | { kind: 'failure'; error: ObolusError };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends one API call with its retries: network errors, 408, 409 idempotency_key_in_use, 429 and 5xx. */
export class Transport {
  readonly #secretKey: string;
  readonly #options: TransportOptions;

  constructor(secretKey: string, options: TransportOptions) {
    this.#secretKey = secretKey;
    this.#options = options;
  }

  async request<T>(
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    call: { body?: unknown; query?: Query; options?: RequestOptions } = {},
  ): Promise<T> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#secretKey}`,
      accept: 'application/json',
      'user-agent': 'obolus-node/0.1.0',
    };
    if (method === 'POST') {
      headers['content-type'] = 'application/json';
      headers['idempotency-key'] = call.options?.idempotencyKey ?? crypto.randomUUID();
    }
    const target = withQuery(url, call.query);
    const body = method === 'POST' ? JSON.stringify(call.body ?? {}) : undefined;
    const timeoutMs = call.options?.timeoutMs ?? this.#options.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.#attempt(method, target, headers, body, timeoutMs);
      const retryIn = attempt < this.#options.maxRetries ? this.#retryDelay(outcome, attempt) : undefined;
      if (retryIn === undefined) {
        if (outcome.kind === 'answer' && outcome.ok) return outcome.body as T;
        throw outcome.kind === 'answer'
          ? errorFromResponse(outcome.status, outcome.body, outcome.requestId, outcome.errorCode)
          : outcome.error;
      }
      await sleep(retryIn);
    }
  }

  async #attempt(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
  ): Promise<Outcome> {
    try {
      const response = await this.#options.fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      return {
        kind: 'answer' as const,
        ok: response.ok,
        status: response.status,
        body: parseJson(text),
        requestId: response.headers.get('request-id') ?? undefined,
        errorCode: response.headers.get('obolus-error-code') ?? undefined,
        retryAfter: response.headers.get('retry-after'),
      };
    } catch (cause) {
      const timedOut = (cause as Error).name === 'TimeoutError';
      return {
        kind: 'failure' as const,
        error: new ObolusError({
          type: 'connection',
          code: timedOut ? 'timeout' : 'connection_failed',
          message: timedOut
            ? `No answer from Obolus within ${timeoutMs} ms (${method} ${url}).`
            : `Could not reach Obolus (${method} ${url}): ${(cause as Error).message}`,
          cause,
        }),
      };
    }
  }

  /** Milliseconds to wait before trying again, or undefined when this outcome is final. */
  #retryDelay(outcome: Outcome, attempt: number): number | undefined {
    const backoff = () => {
      const ceiling = Math.min(this.#options.maxDelayMs, this.#options.retryBaseDelayMs * 2 ** attempt);
      return ceiling / 2 + Math.random() * (ceiling / 2);
    };
    if (outcome.kind === 'failure') return backoff();
    if (outcome.ok) return undefined;
    // 429, and 503 while the service cannot reach its database: it says when to come back.
    if (outcome.status === 429 || outcome.status === 503) return retryAfterMs(outcome.retryAfter) ?? backoff();
    // 408: the request reached the server too slowly and was cut off before anything was done.
    if (outcome.status === 408 || outcome.status >= 500) return backoff();
    const code = (outcome.body as { error?: { code?: string } } | undefined)?.error?.code;
    if (outcome.status === 409 && code === 'idempotency_key_in_use') return backoff();
    return undefined;
  }
}

/** Retry-After in seconds or as an HTTP date; never more than a minute. */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isNaN(ms) ? undefined : Math.min(Math.max(ms, 0), 60_000);
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function withQuery(url: string, query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text ? `${url}?${text}` : url;
}
