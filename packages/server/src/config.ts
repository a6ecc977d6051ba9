import { DAY, HOUR, MINUTE } from './clock.ts';
import { type LiveConnectorConfig, parseLiveConnectorConfig } from './connectors/live-config.ts';
import { parseCrashAt, testHooksAllowed } from './crash-points.ts';
import { type CardDecryptLimits, DEFAULT_CARD_DECRYPT_LIMITS } from './crypto/card-decrypt-pool.ts';
import { DEFAULT_PASSWORD_HASH_LIMITS, type PasswordHashLimits } from './crypto/password-hash-pool.ts';
import { type ApiRateLimits, DEFAULT_API_RATE_LIMITS } from './domain/api-rate-limits.ts';
import { AUDIT_RETENTION_MIN_DAYS, DEFAULT_AUDIT_RETENTION_DAYS } from './domain/audit.ts';
import { DEFAULT_REVIEW_AFTER_MS } from './domain/payments/reconcile.ts';
import { parseTrustProxy, type TrustProxy } from './http/trusted-proxies.ts';
import { DEFAULT_SQLITE_PATH } from './store/database.ts';
import { type DatabaseTimeouts, parseDatabaseTimeouts } from './store/postgres-pool.ts';

/** Everything configurable, read once from OBOLUS_* variables (docs/operations.md lists them). */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** OBOLUS_DATABASE_POOL_SIZE: PostgreSQL connections of each process (`serve --workers N` opens N pools). */
  databasePoolSize: number;
  /**
   * OBOLUS_DATABASE_CONNECT_TIMEOUT_MS / OBOLUS_DATABASE_STATEMENT_TIMEOUT_MS: on PostgreSQL, how
   * long connecting (or waiting for a pooled connection) and one statement may take (decision 0220).
   */
  databaseTimeouts: DatabaseTimeouts;
  /** Public address of the intents API, /embed and the hosted pages. */
  baseUrl: string;
  /** Public address of transaction retrieval and the dashboard. */
  appUrl: string;
  logLevel: string;
  /** OBOLUS_TRUST_PROXY: the reverse proxies whose X-Forwarded-For names the client (http/trusted-proxies.ts). */
  trustProxy: TrustProxy;
  /** OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: let webhooks reach 127.0.0.0/8 and ::1 (development, tests). */
  webhooksAllowLoopback: boolean;
  /**
   * Sandbox endpoints may reach loopback on an explicit developer setup: `serve --dev` (what
   * `npm start` runs) outside NODE_ENV=production, unless OBOLUS_WEBHOOKS_ALLOW_LOOPBACK=false
   * (decisions 0090, 0203).
   */
  sandboxWebhooksAllowLoopback: boolean;
  /** OBOLUS_WEBHOOKS_POLL_MS: how often this process dispatches webhooks; 0 leaves it to `obolus worker`. */
  webhooksPollMs: number;
  /**
   * OBOLUS_MASTER_KEY: base64 of 32 random bytes (a comma-separated list during a rotation, the
   * first seals). Unset: generated into the data directory for SQLite, refused on PostgreSQL.
   */
  masterKey: string | undefined;
  /** OBOLUS_METRICS_HOST / OBOLUS_METRICS_PORT: the listener of GET /metrics; null: none (OBOLUS_METRICS_PORT=off). */
  metrics: { host: string; port: number } | null;
  /**
   * OBOLUS_CHECKOUT_RECEIPT_MINUTES: how long after a payment the hosted checkout page shows
   * the same browser its receipt instead of a new form (0: never).
   */
  checkoutReceiptMs: number;
  /** OBOLUS_LIVE_CONNECTOR and its connector's variables: where live payments go; null refuses them (docs/live.md). */
  liveConnector: LiveConnectorConfig | null;
  /** OBOLUS_REVIEW_UNKNOWN_AFTER_MS: an attempt still of unknown outcome this long is flagged for review. */
  reviewUnknownAfterMs: number;
  /**
   * OBOLUS_HEADERS_TIMEOUT_MS / OBOLUS_REQUEST_TIMEOUT_MS: how long a client may take to send its
   * headers, and its whole request; a slower one gets a 408 and its connection is closed (slowloris).
   */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /**
   * OBOLUS_API_RATE_LIMIT_LIVE / _SANDBOX / _ADDRESS (requests per second, `off`) and
   * OBOLUS_API_RATE_LIMIT_SYNC_MS: the merchant API's rate limits (decision 0150).
   */
  apiRateLimits: ApiRateLimits;
  /**
   * OBOLUS_PASSWORD_HASH_THREADS / OBOLUS_PASSWORD_HASH_QUEUE: scrypt's own threads and how many
   * hashes may wait for them; more sign-ins at once get a 503 (decision 0202).
   */
  passwordHashing: PasswordHashLimits;
  /**
   * OBOLUS_CARD_DECRYPT_THREADS / OBOLUS_CARD_DECRYPT_QUEUE: the card-decryption threads (default
   * min(2, cores)) and how many cards may wait for them; more at once get a 503 (decision 0251).
   */
  cardDecryption: CardDecryptLimits;
  /** OBOLUS_AUDIT_RETENTION_DAYS: how long audit events are kept (at least 365; default 400). */
  auditRetentionDays: number;
  /** OBOLUS_SIGN_IN_RATE_LIMIT: sign-in requests a minute from one client network (0: off). */
  signInRateLimit: number;
  /** OBOLUS_SHUTDOWN_TIMEOUT_MS: after SIGTERM, how long in-flight requests may take before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** How soon work a stopped process left behind is picked up again (`recoveryOf`). */
  recovery: Recovery;
  /**
   * OBOLUS_CAPTURE_WINDOW_HOURS (1..168, default 168): how long an authorization of a
   * capture_method=manual intent waits for its capture before it is voided (decision 0241).
   */
  captureWindowMs: number;
}

/**
 * The timings of recovery after a process stopped mid-work. The defaults are the safe ones
 * (decisions 0041, 0081); tests shorten them all with OBOLUS_TEST_RECOVERY_MS (decision 0170).
 */
export interface Recovery {
  /** How often the expiry sweeper runs (it also settles interrupted sandbox attempts). */
  sweepEveryMs: number;
  /** How often the reconciler asks the live connector about attempts of unknown outcome. */
  reconcileEveryMs: number;
  /** A pending attempt this old is no longer waiting on a call of ours: its answer was lost. */
  interruptedAfterMs: number;
  /** How long a webhook delivery is leased to the process sending it. */
  webhookLeaseMs: number;
  /** How long an Idempotency-Key claim is its request's before a retry may take it over. */
  idempotencyLockMs: number;
}

export const DEFAULT_RECOVERY: Recovery = {
  sweepEveryMs: 30_000,
  reconcileEveryMs: 30_000,
  interruptedAfterMs: MINUTE,
  webhookLeaseMs: MINUTE,
  idempotencyLockMs: MINUTE,
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = parsePort(env.PORT ?? '4242');
  const host = env.HOST ?? '127.0.0.1';
  const local = `http://localhost:${port}`;
  const baseUrl = stripSlash(env.OBOLUS_BASE_URL ?? local);
  const databaseUrl = parseDatabaseUrl(env.OBOLUS_DATABASE_URL || DEFAULT_SQLITE_PATH);
  return {
    port,
    host,
    databaseUrl,
    databasePoolSize: parsePoolSize(env.OBOLUS_DATABASE_POOL_SIZE ?? '10'),
    databaseTimeouts: parseDatabaseTimeouts(env),
    baseUrl,
    appUrl: stripSlash(env.OBOLUS_APP_URL ?? baseUrl),
    logLevel: env.OBOLUS_LOG_LEVEL ?? 'info',
    trustProxy: parseTrustProxy(env.OBOLUS_TRUST_PROXY),
    webhooksAllowLoopback: env.OBOLUS_WEBHOOKS_ALLOW_LOOPBACK === 'true',
    sandboxWebhooksAllowLoopback: sandboxLoopback(env),
    webhooksPollMs: parsePollMs(env.OBOLUS_WEBHOOKS_POLL_MS ?? '1000'),
    masterKey: env.OBOLUS_MASTER_KEY || undefined,
    metrics: parseMetrics(env),
    liveConnector: parseLiveConnectorConfig(env),
    checkoutReceiptMs: parseReceiptMinutes(env.OBOLUS_CHECKOUT_RECEIPT_MINUTES ?? '30') * 60_000,
    reviewUnknownAfterMs: parseReviewAfter(env.OBOLUS_REVIEW_UNKNOWN_AFTER_MS || String(DEFAULT_REVIEW_AFTER_MS)),
    ...parseRequestTimeouts(env),
    apiRateLimits: parseApiRateLimits(env),
    passwordHashing: {
      threads: parseCount(env, 'OBOLUS_PASSWORD_HASH_THREADS', DEFAULT_PASSWORD_HASH_LIMITS.threads, 1, 64),
      queue: parseCount(env, 'OBOLUS_PASSWORD_HASH_QUEUE', DEFAULT_PASSWORD_HASH_LIMITS.queue, 0, 10_000),
    },
    cardDecryption: {
      threads: parseCount(env, 'OBOLUS_CARD_DECRYPT_THREADS', DEFAULT_CARD_DECRYPT_LIMITS.threads, 1, 64),
      queue: parseCount(env, 'OBOLUS_CARD_DECRYPT_QUEUE', DEFAULT_CARD_DECRYPT_LIMITS.queue, 0, 100_000),
    },
    auditRetentionDays: parseCount(
      env,
      'OBOLUS_AUDIT_RETENTION_DAYS',
      DEFAULT_AUDIT_RETENTION_DAYS,
      AUDIT_RETENTION_MIN_DAYS,
      36_500,
    ),
    signInRateLimit:
      env.OBOLUS_SIGN_IN_RATE_LIMIT === 'off'
        ? 0
        : parseCount(env, 'OBOLUS_SIGN_IN_RATE_LIMIT', DEFAULT_SIGN_IN_RATE_LIMIT, 1, 1_000_000),
    recovery: recoveryOf(env),
    captureWindowMs: parseCaptureWindowHours(env.OBOLUS_CAPTURE_WINDOW_HOURS || '168') * HOUR,
  };
}

/** At most 7 days: what the acquirers hold an authorization for (Stripe cancels it then). */
function parseCaptureWindowHours(text: string): number {
  const hours = Number(text);
  if (!/^\d+$/.test(text) || hours < 1 || hours > 168) {
    throw new Error(`OBOLUS_CAPTURE_WINDOW_HOURS must be 1..168 hours (at most 7 days), got '${text}'`);
  }
  return hours;
}

/**
 * Why `serve` must not start with a live connector: a public address (OBOLUS_BASE_URL,
 * OBOLUS_APP_URL) in plain http on a host other than loopback. TLS is terminated in front
 * (docs/operations.md), and the addresses shoppers and merchants are given must say so (the
 * spec: every request over HTTPS). Null when the addresses are fine.
 */
export function insecurePublicAddress(config: Pick<Config, 'baseUrl' | 'appUrl' | 'liveConnector'>): string | null {
  if (!config.liveConnector) return null;
  for (const [name, url] of [
    ['OBOLUS_BASE_URL', config.baseUrl],
    ['OBOLUS_APP_URL', config.appUrl],
  ] as const) {
    const parsed = URL.parse(url);
    if (parsed?.protocol === 'http:' && !isLoopbackHost(parsed.hostname)) {
      return `${name} is ${url}: with a live connector the public addresses must be https:// (terminate TLS in front, docs/operations.md).`;
    }
  }
  return null;
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Sign-in requests a minute per client network by default: a person types far fewer. */
export const DEFAULT_SIGN_IN_RATE_LIMIT = 20;

function parseCount(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const text = env[name] || String(fallback);
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new Error(
      `${name} must be a whole number ${min}..${max}${name === 'OBOLUS_SIGN_IN_RATE_LIMIT' ? ', or off' : ''}; got '${text}'`,
    );
  }
  return value;
}

function parseApiRateLimits(env: NodeJS.ProcessEnv): ApiRateLimits {
  const perSecond = (name: string, fallback: number) => {
    const text = env[name] || String(fallback);
    if (text === 'off') return 0;
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < 1 || value > 1_000_000) {
      throw new Error(`${name} must be 1..1000000 requests per second, or off; got '${text}'`);
    }
    return value;
  };
  const syncText = env.OBOLUS_API_RATE_LIMIT_SYNC_MS || String(DEFAULT_API_RATE_LIMITS.syncMs);
  const syncMs = Number(syncText);
  if (!/^\d+$/.test(syncText) || syncMs < 10 || syncMs > 1000) {
    throw new Error(`OBOLUS_API_RATE_LIMIT_SYNC_MS must be 10..1000 milliseconds, got '${syncText}'`);
  }
  return {
    live: perSecond('OBOLUS_API_RATE_LIMIT_LIVE', DEFAULT_API_RATE_LIMITS.live),
    sandbox: perSecond('OBOLUS_API_RATE_LIMIT_SANDBOX', DEFAULT_API_RATE_LIMITS.sandbox),
    address: perSecond('OBOLUS_API_RATE_LIMIT_ADDRESS', DEFAULT_API_RATE_LIMITS.address),
    syncMs,
  };
}

/**
 * The embedded store opens its file three times (Kysely's connection, the reader, the writer
 * thread): `:memory:` would be three unrelated databases. Resolved as a path, it used to become
 * a file named `:memory:` in the working directory.
 */
function parseDatabaseUrl(url: string): string {
  if (url === ':memory:' || /^file:.*mode=memory/.test(url)) {
    throw new Error(
      'OBOLUS_DATABASE_URL cannot be an in-memory SQLite database: give a file path (or a PostgreSQL URL)',
    );
  }
  return url;
}

/**
 * Test hooks (crash points, short recovery timings) need OBOLUS_TEST_HOOKS=1 and a NODE_ENV
 * other than production: set by mistake in production, they stop the start instead of
 * weakening it.
 */
function recoveryOf(env: NodeJS.ProcessEnv): Recovery {
  const hooks = ['OBOLUS_CRASH_AT', 'OBOLUS_TEST_RECOVERY_MS'].filter((name) => env[name]);
  if (hooks.length > 0 && !testHooksAllowed(env)) {
    throw new Error(`${hooks.join(' and ')}: test hooks only, refused without OBOLUS_TEST_HOOKS=1 or in production`);
  }
  parseCrashAt(env.OBOLUS_CRASH_AT);
  const text = env.OBOLUS_TEST_RECOVERY_MS;
  if (!text) return DEFAULT_RECOVERY;
  const ms = Number(text);
  if (!/^\d+$/.test(text) || ms < 100 || ms > MINUTE) {
    throw new Error(`OBOLUS_TEST_RECOVERY_MS must be 100..60000 milliseconds, got '${text}'`);
  }
  return { sweepEveryMs: ms, reconcileEveryMs: ms, interruptedAfterMs: ms, webhookLeaseMs: ms, idempotencyLockMs: ms };
}

function parseRequestTimeouts(
  env: NodeJS.ProcessEnv,
): Pick<Config, 'headersTimeoutMs' | 'requestTimeoutMs' | 'shutdownTimeoutMs'> {
  const read = (name: string, fallback: number) => {
    const text = env[name] || String(fallback);
    const ms = Number(text);
    if (!/^\d+$/.test(text) || ms < 100 || ms > 10 * MINUTE) {
      throw new Error(`${name} must be 100..600000 milliseconds, got '${text}'`);
    }
    return ms;
  };
  const headersTimeoutMs = read('OBOLUS_HEADERS_TIMEOUT_MS', 10_000);
  const requestTimeoutMs = read('OBOLUS_REQUEST_TIMEOUT_MS', 30_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new Error('OBOLUS_HEADERS_TIMEOUT_MS must not be longer than OBOLUS_REQUEST_TIMEOUT_MS');
  }
  // 25 s: inside the 30 s a container orchestrator waits after SIGTERM before it kills.
  return { headersTimeoutMs, requestTimeoutMs, shutdownTimeoutMs: read('OBOLUS_SHUTDOWN_TIMEOUT_MS', 25_000) };
}

/** What webhook URLs may target, for the endpoint rules and the sender (decisions 0021, 0090). */
export const webhookPolicy = (config: Config) => ({
  allowLoopback: config.webhooksAllowLoopback,
  allowSandboxLoopback: config.sandboxWebhooksAllowLoopback,
});

/**
 * Sandbox endpoints reach loopback only on an explicit developer setup (decision 0203):
 * `obolus serve --dev` (what `npm start` runs; `developerLoopback`), or
 * OBOLUS_WEBHOOKS_ALLOW_LOOPBACK=true; `false` rules it out even with --dev.
 */
function sandboxLoopback(env: NodeJS.ProcessEnv): boolean {
  return env.OBOLUS_WEBHOOKS_ALLOW_LOOPBACK === 'true';
}

/** `serve --dev`: the configuration of a developer machine, or why it cannot be one. */
export function developerLoopback(config: Config, env: NodeJS.ProcessEnv = process.env): Config | string {
  if (env.NODE_ENV === 'production') {
    return '--dev is a developer setup and NODE_ENV is production: drop one of them (npx obolus serve in production).';
  }
  return { ...config, sandboxWebhooksAllowLoopback: env.OBOLUS_WEBHOOKS_ALLOW_LOOPBACK !== 'false' };
}

function parsePollMs(text: string): number {
  const ms = Number(text);
  if (!/^\d+$/.test(text) || ms > 3_600_000) {
    throw new Error(`OBOLUS_WEBHOOKS_POLL_MS must be 0..3600000 milliseconds, got '${text}'`);
  }
  return ms;
}

/** At most 7 days: an intent's own window. */
function parseReceiptMinutes(text: string): number {
  const minutes = Number(text);
  if (!/^\d+$/.test(text) || minutes > 10_080) {
    throw new Error(`OBOLUS_CHECKOUT_RECEIPT_MINUTES must be 0..10080 minutes, got '${text}'`);
  }
  return minutes;
}

function parseReviewAfter(text: string): number {
  const ms = Number(text);
  if (!/^\d+$/.test(text) || ms < MINUTE || ms > 30 * DAY) {
    throw new Error(`OBOLUS_REVIEW_UNKNOWN_AFTER_MS must be ${MINUTE}..${30 * DAY} milliseconds, got '${text}'`);
  }
  return ms;
}

function parsePoolSize(text: string): number {
  const size = Number(text);
  if (!/^\d+$/.test(text) || size < 1 || size > 1000) {
    throw new Error(`OBOLUS_DATABASE_POOL_SIZE must be 1..1000 connections, got '${text}'`);
  }
  return size;
}

function parsePort(text: string, name = 'PORT'): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new Error(`${name} must be 0..65535, got '${text}'`);
  return port;
}

/** Prometheus exporters' customary port, on loopback: scrape it from the host, or set a private address. */
export const DEFAULT_METRICS_PORT = 9464;

function parseMetrics(env: NodeJS.ProcessEnv): Config['metrics'] {
  const port = env.OBOLUS_METRICS_PORT ?? String(DEFAULT_METRICS_PORT);
  if (port === 'off') return null;
  return { host: env.OBOLUS_METRICS_HOST || '127.0.0.1', port: parsePort(port, 'OBOLUS_METRICS_PORT') };
}

const stripSlash = (url: string) => url.replace(/\/+$/, '');
