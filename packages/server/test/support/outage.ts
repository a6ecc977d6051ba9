import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import type { JWK } from 'jose';
import { expect } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { createAccount } from '../../src/domain/accounts.ts';
import { openServices } from '../../src/services.ts';
import { OBOLUS_BIN } from './cli.ts';
import { killOnExit, type SecondProcess, startServeProcess } from './second-process.ts';
import type { TestAccount, TestServer } from './server.ts';
import { until } from './until.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';
import { card, encryptCard } from './widget-client.ts';

/**
 * What the database-outage tests share (test/database-outage.test.ts, database-failover.test.ts):
 * Obolus as an operator runs it on PostgreSQL (`serve --workers 2`, `obolus listen`), a payment
 * load through the outage, what every surface answers while the database is away, and what
 * must hold after it (decision 0220).
 */

/** Short timeouts, quick background passes: an outage of a few seconds shows everything. */
export const OUTAGE_ENV: Record<string, string> = {
  OBOLUS_DATABASE_CONNECT_TIMEOUT_MS: '1000',
  OBOLUS_DATABASE_STATEMENT_TIMEOUT_MS: '1000',
  OBOLUS_WEBHOOKS_POLL_MS: '200',
  OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: 'true',
  OBOLUS_TEST_HOOKS: '1',
  OBOLUS_TEST_RECOVERY_MS: '1000',
  // Limits on, far above the load: the rate-limit sync runs against the database too.
  OBOLUS_API_RATE_LIMIT_LIVE: '10000',
  OBOLUS_API_RATE_LIMIT_SANDBOX: '10000',
  OBOLUS_API_RATE_LIMIT_ADDRESS: '100000',
  OBOLUS_LOG_LEVEL: 'info',
  OBOLUS_METRICS_PORT: '0',
};

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
  ms: number;
}

export async function call(
  url: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const started = performance.now();
  const response = await fetch(url + path, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers, text, json, ms: performance.now() - started };
}

/** Where merchants and shoppers reach Obolus, with the shop they use. */
export interface Storefront {
  url: string;
  shop: TestAccount;
  /** The card-encryption key, fetched while the database was there (the widget has it by then too). */
  jwk: JWK;
}

export interface ObolusOnDatabase extends Storefront {
  serve: SecondProcess;
  /** A sandbox product, for its hosted checkout page. */
  productId: string;
  /** The shop's webhook endpoint. */
  webhooks: Receiver;
  /** When each event was accepted by the endpoint, by `<type> <object id>`. */
  accepted: Map<string, number>;
  /** While true the endpoint answers 500 (the dispatcher retries 5 s later). */
  refuseWebhooks: boolean;
  close(): Promise<void>;
}

/** The first account, made as `obolus accounts create` would, on a fresh database. */
export async function firstAccount(databaseUrl: string): Promise<TestAccount> {
  // Every process of the test (this one and the `obolus` processes it spawns) shares one key.
  process.env.OBOLUS_MASTER_KEY ||= randomBytes(32).toString('base64');
  const services = await openServices(loadConfig({ ...process.env, OBOLUS_DATABASE_URL: databaseUrl }));
  try {
    const created = await createAccount(services.repos.accounts, systemClock, {
      name: 'Outage Shop',
      email: 'ops@example.com',
    });
    return { id: created.account.id, secretKey: created.secretKey, clientKey: created.account.clientKey };
  } finally {
    await services.database.close();
  }
}

/**
 * `obolus serve` (with `--workers 2` when asked) over `databaseUrl`, the first account, its
 * webhook endpoint and a sandbox product.
 */
export async function startObolusOn(
  databaseUrl: string,
  options: { workers?: number } = {},
): Promise<ObolusOnDatabase> {
  const shop = await firstAccount(databaseUrl);
  const args = options.workers ? ['--workers', String(options.workers)] : [];
  const serve = await startServeProcess(databaseUrl, { args, env: OUTAGE_ENV });
  const webhooks = await startReceiver();
  const endpoint = await call(serve.url, 'POST', '/api/v1/webhook-endpoints', {
    key: shop.secretKey,
    body: { url: webhooks.url, enabled_events: ['*'], mode: 'sandbox' },
  });
  expect(endpoint.status).toBe(200);
  const product = await call(serve.url, 'POST', '/api/v1/products', {
    key: shop.secretKey,
    body: { name: 'Tea', amount: 900, currency: 'USD', mode: 'sandbox' },
  });
  expect(product.status).toBe(200);
  const app: ObolusOnDatabase = {
    url: serve.url,
    jwk: await encryptionKey(serve.url),
    productId: product.json.id,
    accepted: new Map(),
    refuseWebhooks: false,
    serve,
    shop,
    webhooks,
    close: async () => {
      await serve.stop();
      await webhooks.close();
    },
  };
  webhooks.reply = (webhook) => {
    if (app.refuseWebhooks) return { status: 500 };
    const key = `${webhook.json?.type} ${webhook.json?.data?.object?.id}`;
    if (!app.accepted.has(key)) app.accepted.set(key, Date.now());
    return { status: 204 };
  };
  return app;
}

/** `obolus worker` (webhooks only) over `databaseUrl`, beside the serve processes. */
export async function startWorker(databaseUrl: string): Promise<{ child: ChildProcess; output(): string }> {
  const child = spawn(process.execPath, [OBOLUS_BIN, 'worker'], {
    env: { ...process.env, ...OUTAGE_ENV, OBOLUS_DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killOnExit(child);
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  await until(() => output.includes('webhook worker started'), 20_000);
  return { child, output: () => output };
}

export interface Listening {
  child: ChildProcess;
  /** Where it forwards. */
  received: Receiver;
  output(): string;
  close(): Promise<void>;
}

/** `obolus listen` following the shop's events on `app`, forwarding to a receiver of its own. */
export async function startListen(app: ObolusOnDatabase): Promise<Listening> {
  const received = await startReceiver();
  const args = ['listen', '--forward-to', received.url, '--api-url', app.url, '--api-key', app.shop.secretKey];
  const child = spawn(process.execPath, [OBOLUS_BIN, ...args, '--interval', '200'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killOnExit(child);
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  await until(() => output.includes('Ready!'), 20_000);
  return {
    child,
    received,
    output: () => output,
    close: async () => {
      child.kill('SIGTERM');
      await received.close();
    },
  };
}

export const encryptionKey = async (url: string) =>
  ((await call(url, 'GET', '/embed/v1/jwks.json')).json as { keys: JWK[] }).keys[0] as JWK;

/** Enough of a TestServer for encryptCard: the JWKS comes from `url`, the time from this clock. */
const remote = (url: string) =>
  ({
    call: (method: string, path: string) => call(url, method, path),
    server: { services: { clock: systemClock } },
  }) as unknown as TestServer;

export interface LoadRecord {
  /** Intents whose creation was answered 200: each must be found afterwards. */
  created: Map<string, { clientSecret: string; amount: number }>;
  /** Intents whose payment was answered `succeeded`. */
  paid: Set<string>;
  /** Every answer: status and time. */
  answers: Answer[];
}

/**
 * Merchants creating intents and shoppers paying them, `loops` at a time, until stop(): each
 * create carries an Idempotency-Key; a 503 is an answer like any other, recorded and checked.
 */
export function startPaymentLoad(app: Storefront, loops = 3) {
  const record: LoadRecord = { created: new Map(), paid: new Set(), answers: [] };
  let stopping = false;
  const one = async (n: number) => {
    const amount = 1000 + n;
    const created = await call(app.url, 'POST', '/api/v1/payment-intents', {
      key: app.shop.secretKey,
      body: { amount, currency: 'USD', mode: 'sandbox' },
      headers: { 'idempotency-key': randomUUID() },
    });
    record.answers.push(created);
    if (created.status !== 200) return;
    const { id, client_secret: clientSecret } = created.json as { id: string; client_secret: string };
    record.created.set(id, { clientSecret, amount });
    const paid = await pay(app, clientSecret);
    record.answers.push(paid);
    if (paid.status === 200 && paid.json.status === 'succeeded') record.paid.add(id);
  };
  const loop = async (offset: number) => {
    for (let n = offset; !stopping; n += loops) {
      await one(n).catch((error: unknown) => {
        record.answers.push({ status: 0, headers: new Headers(), text: String(error), json: undefined, ms: 0 });
      });
    }
  };
  const running = Promise.all(Array.from({ length: loops }, (_, i) => loop(i)));
  return {
    record,
    stop: async () => {
      stopping = true;
      await running;
      return record;
    },
  };
}

/** The widget's confirm, with the sandbox success card. */
export async function pay(app: Storefront, clientSecret: string): Promise<Answer> {
  const jwe = await encryptCard(remote(app.url), clientSecret, card('4242424242424242'), { jwk: app.jwk });
  return call(app.url, 'POST', '/embed/v1/confirm', {
    body: { pk: app.shop.clientKey, client_secret: clientSecret, mode: 'sandbox', card: jwe },
  });
}
