import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.ts';
import type { ApiMode, ApiRateLimiter } from '../../domain/api-rate-limits.ts';
import { bearerDigest, bearerToken } from './secret-key-auth.ts';

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/**
 * The merchant API's rate limits (decision 0150), counted in this process's memory. Register
 * before secretKeyAuth: a request over its network's limit, or a read over its key's, is
 * refused before the key is looked up, so a flood costs no database work. A request with a
 * body is counted once the body is read (its `mode` decides which allowance it uses), before
 * validation and the Idempotency-Key claim, so a refused POST can be retried with the same key.
 */
export function useApiRateLimit(scope: FastifyInstance, limits: ApiRateLimiter, clock: Clock): void {
  const warnings = new RefusalWarnings(clock);
  // `done` hooks: these never wait, and run on every API request (an async hook costs a promise).
  scope.addHook(
    'onRequest',
    refusing((request) => {
      warnings.watch(request, 'network', () => limits.admitAddress(request.ip));
      if (BODYLESS.has(request.method)) admitKey(limits, warnings, request);
    }),
  );
  scope.addHook(
    'preValidation',
    refusing((request) => {
      if (!BODYLESS.has(request.method)) admitKey(limits, warnings, request);
    }),
  );
}

/** A hook that runs `check` and passes what it throws (a 429) to Fastify. */
const refusing =
  (check: (request: FastifyRequest) => void) =>
  (request: FastifyRequest, _reply: unknown, done: (error?: Error) => void): void => {
    let refused: Error | undefined;
    try {
      check(request);
    } catch (error) {
      refused = error as Error;
    }
    done(refused);
  };

function admitKey(limits: ApiRateLimiter, warnings: RefusalWarnings, request: FastifyRequest): void {
  const token = bearerToken(request);
  // No key: secretKeyAuth answers 401 (the network's limit has counted the request).
  if (!token) return;
  const mode = modeOf(request);
  // Part of the digest: enough to count by, never a way back to the key or its database row.
  warnings.watch(
    request,
    mode,
    () => limits.admitKey(bearerDigest(request, token).slice(0, 20), mode),
    token.slice(-4),
  );
}

/**
 * One warning per limit and subject per second when it starts refusing, with what names the
 * subject for an operator (the network, or the key's last 4 characters as the dashboard shows
 * them); the refused requests themselves are logged at debug level.
 */
class RefusalWarnings {
  readonly #warned = new Map<string, number>();
  readonly #clock: Clock;
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  watch(request: FastifyRequest, limit: 'network' | ApiMode, admit: () => void, keyLast4?: string): void {
    try {
      admit();
    } catch (error) {
      const subject = keyLast4 ?? request.ip;
      const id = `${limit}:${subject}`;
      const second = Math.floor(this.#clock.now() / 1000);
      if (this.#warned.get(id) !== second) {
        if (this.#warned.size >= 10_000) this.#warned.clear();
        this.#warned.set(id, second);
        request.log.warn(
          { limit, ...(keyLast4 ? { key_last4: keyLast4 } : { client: request.ip }) },
          'API rate limit reached',
        );
      }
      throw error;
    }
  }
}

/**
 * A request is a sandbox one when it says so; reads by id count as live, since their mode
 * is only known once the object is read, and the limit is decided before any database work.
 */
function modeOf(request: FastifyRequest): ApiMode {
  if (request.url.startsWith('/api/v1/sandbox/')) return 'sandbox';
  const body = request.body;
  if (typeof body === 'object' && body !== null && Object.hasOwn(body, 'mode')) {
    return (body as { mode?: unknown }).mode === 'sandbox' ? 'sandbox' : 'live';
  }
  const query = request.query as Record<string, unknown> | undefined;
  return query && Object.hasOwn(query, 'mode') && query.mode === 'sandbox' ? 'sandbox' : 'live';
}
