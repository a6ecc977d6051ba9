import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import type { JWK } from 'jose';
import { expect } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { createAccount } from '../../src/domain/accounts.ts';
import { openServices } from '../../src/services.ts';
import { OBOLUS_BIN } from './cli.ts';
import { type SecondProcess, startServeProcess } from './second-process.ts';
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

/** The bounds: every answer during the outage within 5 s, recovery within 15 s. */
export const ANSWER_WITHIN_MS = 5000;
export const RECOVER_WITHIN_MS = 15_000;

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
  /** Where `obolus listen` forwards. */
  listened: Receiver;
  listen: ChildProcess;
  listenOutput(): string;
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

/** `obolus serve --workers 2` over `databaseUrl`, a webhook endpoint, and `obolus listen` beside it. */
export async function startObolusOn(databaseUrl: string): Promise<ObolusOnDatabase> {
  const shop = await firstAccount(databaseUrl);
  const serve = await startServeProcess(databaseUrl, { args: ['--workers', '2'], env: OUTAGE_ENV });
  const webhooks = await startReceiver();
  const listened = await startReceiver();
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
  const listen = spawn(
    process.execPath,
    [
      OBOLUS_BIN,
      'listen',
      '--forward-to',
      listened.url,
      '--api-url',
      serve.url,
      '--api-key',
      shop.secretKey,
      '--interval',
      '200',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let listenOutput = '';
  listen.stdout?.on('data', (d) => (listenOutput += d));
  listen.stderr?.on('data', (d) => (listenOutput += d));
  await until(() => listenOutput.includes('Ready!'), 20_000);
  const jwk = await encryptionKey(serve.url);
  const app: ObolusOnDatabase = {
    url: serve.url,
    jwk,
    productId: product.json.id,
    accepted: new Map(),
    refuseWebhooks: false,
    serve,
    shop,
    webhooks,
    listened,
    listen,
    listenOutput: () => listenOutput,
    close: async () => {
      listen.kill('SIGTERM');
      await serve.stop();
      await webhooks.close();
      await listened.close();
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

const UNAVAILABLE_MESSAGE =
  'The service is briefly unavailable: it cannot reach its database. Try again in a few seconds.';

/** A 503 of the §7.2 shape, with Retry-After, and nothing of the driver in it. */
export function expectApiUnavailable(answer: Answer): void {
  expect(answer.status, answer.text).toBe(503);
  expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(answer.json.error).toMatchObject({
    type: 'server',
    code: 'database_unavailable',
    message: UNAVAILABLE_MESSAGE,
  });
  expect(answer.json.error.request_id).toBe(answer.headers.get('request-id'));
  expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
}

/** While the database is away: every surface answers 503 in its own shape, fast; the process lives. */
export async function expectUnavailableEverywhere(app: ObolusOnDatabase, intent: { id: string; clientSecret: string }) {
  const key = app.shop.secretKey;
  const answers = await Promise.all([
    call(app.url, 'POST', '/api/v1/payment-intents', { key, body: { amount: 500, currency: 'USD', mode: 'sandbox' } }),
    call(app.url, 'GET', `/api/v1/payment-intents/${intent.id}`, { key }),
    call(app.url, 'POST', '/embed/v1/intent', { body: { pk: app.shop.clientKey, client_secret: intent.clientSecret } }),
    pay(app, intent.clientSecret),
  ]);
  for (const answer of answers) expectApiUnavailable(answer);
  const transactions = await call(app.url, 'GET', '/api/v1/transactions', { key });
  expect(transactions.status, transactions.text).toBe(503);
  expect(transactions.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(transactions.json).toEqual({ error: UNAVAILABLE_MESSAGE });
  expect(transactions.ms).toBeLessThan(ANSWER_WITHIN_MS);
  const dashboard = await call(app.url, 'GET', '/dashboard', { headers: { cookie: 'obolus_session=any' } });
  expect(dashboard.status).toBe(503);
  expect(dashboard.headers.get('content-type')).toMatch(/^text\/html/);
  expect(dashboard.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(dashboard.text).toContain('cannot reach its database');
  expect(dashboard.ms).toBeLessThan(ANSWER_WITHIN_MS);
  // The shopper's pages: the widget's frame and the hosted checkout page say to reload.
  const pages = await Promise.all([
    call(app.url, 'GET', `/embed?pk=${app.shop.clientKey}&mode=sandbox`),
    call(app.url, 'GET', `/${app.productId}`),
  ]);
  for (const page of pages) {
    expect(page.status).toBe(503);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('Payments are briefly unavailable');
    expect(page.ms).toBeLessThan(ANSWER_WITHIN_MS);
  }
  for (const answer of [...answers, transactions, dashboard, ...pages]) expectNothingOfTheDriver(answer.text);
  expect((await call(app.url, 'GET', '/healthz')).status).toBe(200);
  const ready = await call(app.url, 'GET', '/readyz');
  expect(ready.status).toBe(503);
  expect(ready.ms).toBeLessThan(ANSWER_WITHIN_MS);
}

function expectNothingOfTheDriver(text: string): void {
  for (const leak of [
    'Connection terminated',
    'ECONNREFUSED',
    'ECONNRESET',
    'timeout exceeded',
    'postgres',
    '    at ',
  ]) {
    expect(text).not.toContain(leak);
  }
}

/** Every process is still the one that started: none died (and none was replaced). */
export function expectAlive(app: ObolusOnDatabase): void {
  expect(app.serve.child.exitCode).toBeNull();
  expect(app.listen.exitCode).toBeNull();
  const output = app.serve.output();
  expect(output).not.toContain('worker died');
  expect(output).not.toContain("Emitted 'error' event");
}

/** Polls /readyz until 200; answers how long it took. */
export async function recoveryTime(app: ObolusOnDatabase, since: number): Promise<number> {
  for (;;) {
    const ready = await call(app.url, 'GET', '/readyz').catch(() => null);
    if (ready?.status === 200) return Date.now() - since;
    if (Date.now() - since > RECOVER_WITHIN_MS) throw new Error('not ready again within 15 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Webhooks that fall due while the database is away: the receiver fails the first attempts of
 * a few new intents' events (their retry comes 5 s later), and the database goes away before
 * that; `up()` lets the receiver accept again, and `due()` waits until the retries are due.
 */
export async function webhooksDueDuringTheOutage(app: ObolusOnDatabase) {
  app.refuseWebhooks = true;
  const markers: string[] = [];
  for (let i = 0; i < 2; i++) {
    const created = await call(app.url, 'POST', '/api/v1/payment-intents', {
      key: app.shop.secretKey,
      body: { amount: 4200 + i, currency: 'USD', mode: 'sandbox' },
    });
    markers.push(created.json.id);
  }
  const refused = () => markers.every((id) => app.webhooks.received.some((w) => w.json?.data?.object?.id === id));
  await until(refused);
  const failedAt = Date.now();
  return {
    markers,
    /** The first retry (5 s after the refused attempt) is due now. */
    due: async () => {
      const wait = failedAt + 5500 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      app.refuseWebhooks = false;
    },
    /** Each marker's event was accepted after `since`. */
    deliveredAfter: (since: number) =>
      markers.every((id) => (app.accepted.get(`payment_intent.created ${id}`) ?? 0) >= since),
  };
}

const CHARGED = [20, 40, 41, 50];

/**
 * After the outage: every acknowledged intent and payment is there, shoppers who were told to
 * try again can pay (once), no intent is charged twice, and every event is delivered.
 */
export async function expectGuarantees(
  app: ObolusOnDatabase,
  record: LoadRecord,
  query: (sql: string) => Promise<Array<Record<string, unknown>>>,
): Promise<void> {
  for (const answer of record.answers) {
    expect(answer.status, answer.text).not.toBe(0);
    if (answer.status >= 500) expectApiUnavailable(answer);
    else expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
  }
  const key = app.shop.secretKey;
  for (const [id, { amount, clientSecret }] of record.created) {
    const intent = await call(app.url, 'GET', `/api/v1/payment-intents/${id}`, { key });
    expect(intent.status).toBe(200);
    expect(intent.json.amount).toBe(amount);
    if (record.paid.has(id)) expect(intent.json.status).toBe('succeeded');
    // The shopper told to try again does; one paid already is told so, never charged again.
    else if (intent.json.status === 'requires_payment' || intent.json.status === 'failed') {
      expect((await pay(app, clientSecret)).status).toBe(200);
    }
  }
  // Attempts cut short by the outage are settled by the expiry sweeper, working again.
  await untilAsync(async () => (await query('select 1 from transactions where status = 10')).length === 0);
  const twice = await query(
    `select payment_intent_id, count(*) as n from transactions where status in (${CHARGED.join(',')}) group by 1 having count(*) > 1`,
  );
  expect(twice).toEqual([]);
  const paid = await query(
    `select distinct payment_intent_id from transactions where status in (${CHARGED.join(',')})`,
  );
  for (const id of record.paid) expect(paid.map((row) => row.payment_intent_id)).toContain(id);
  await until(() => [...record.created.keys()].every((id) => delivered(app, id, 'payment_intent.created')), 30_000);
  await until(() => [...record.paid].every((id) => delivered(app, id, 'payment_intent.succeeded')), 30_000);
}

const delivered = (app: ObolusOnDatabase, intent: string, type: string) => app.accepted.has(`${type} ${intent}`);

async function untilAsync(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; !(await check()); ) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
