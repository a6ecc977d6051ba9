import { expect } from 'vitest';
import { reportFigure } from './battery.ts';
import { type Answer, call, type LoadRecord, type ObolusOnDatabase, pay, startPaymentLoad } from './outage.ts';
import { until } from './until.ts';

/**
 * What must hold while the database is away and after it (decision 0220): the checks of
 * test/database-outage.test.ts and database-failover.test.ts, on Obolus started by outage.ts.
 */
/**
 * The issue asked for every answer during an outage within 5 s and recovery within 15 s; those
 * durations are reported (`reportFigure`), not asserted (decisions 0272, 0273): a loaded machine
 * decides them. What is asserted is that each answer is the 503 the deadlines write, given while
 * the database is still away (an answer at all proves no hang; the test's timeout guards that),
 * and that readiness comes back in the same process once the database is back.
 */
const answerTimes: number[] = [];
const noted = (answer: Answer) => answerTimes.push(answer.ms);

/** The slowest answer seen during the outage, reported and then forgotten. */
export function reportAnswerTimes(name: string): void {
  if (answerTimes.length === 0) return;
  const slowest = Math.max(...answerTimes);
  reportFigure(`${name}: slowest of ${answerTimes.length} answers during the outage`, `${Math.round(slowest)} ms`);
  answerTimes.length = 0;
}

/** The causes the database deadlines write (connect timeout, statement timeout, read timeout). */
const DEADLINE_CAUSE = /timeout exceeded when trying to connect|Query read timeout|statement timeout/;

/**
 * Each answer's request failed on a database deadline, by the server's own log line for its
 * request id (written a moment after the answer): with the database unreachable and silent,
 * nothing else could have ended it.
 */
export async function expectEndedByDeadline(app: ObolusOnDatabase, answers: Answer[]): Promise<void> {
  const lineOf = (id: string) =>
    app.serve
      .output()
      .split('\n')
      .find((line) => line.includes('request failed: database unavailable') && line.includes(`"request_id":"${id}"`));
  for (const answer of answers) {
    const id = answer.headers.get('request-id') as string;
    await expect.poll(() => lineOf(id), { message: `log line of ${id}` }).toMatch(DEADLINE_CAUSE);
  }
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
  noted(answer);
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
  noted(transactions);
  const dashboard = await call(app.url, 'GET', '/dashboard', { headers: { cookie: 'obolus_session=any' } });
  expect(dashboard.status).toBe(503);
  expect(dashboard.headers.get('content-type')).toMatch(/^text\/html/);
  expect(dashboard.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(dashboard.text).toContain('cannot reach its database');
  noted(dashboard);
  // The shopper's pages: the widget's frame and the hosted checkout page say to reload.
  const pages = await Promise.all([
    call(app.url, 'GET', `/embed?pk=${app.shop.clientKey}&mode=sandbox`),
    call(app.url, 'GET', `/${app.productId}`),
  ]);
  for (const page of pages) {
    expect(page.status).toBe(503);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('Payments are briefly unavailable');
    noted(page);
  }
  for (const answer of [...answers, transactions, dashboard, ...pages]) expectNothingOfTheDriver(answer.text);
  expect((await call(app.url, 'GET', '/healthz')).status).toBe(200);
  // Metrics matter most now: the scrape answers (the review gauge keeps its last count).
  const metricsUrl = /Metrics\s+(http:\S+)/.exec(app.serve.output())?.[1];
  expect(metricsUrl).toMatch(/^http:/);
  const metrics = await fetch(metricsUrl as string);
  expect(metrics.status).toBe(200);
  expect(await metrics.text()).toContain('obolus_payment_attempts_requires_review');
  const ready = await call(app.url, 'GET', '/readyz');
  expect(ready.status).toBe(503);
  noted(ready);
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
  const output = app.serve.output();
  expect(output).not.toContain('worker died');
  expect(output).not.toContain("Emitted 'error' event");
}

/**
 * Polls /readyz until 200 and reports how long it took. No bound but the test's timeout (the
 * hang guard): the same process must serve again, expectAlive checks it is the same.
 */
export async function readyAgain(app: ObolusOnDatabase, since: number, name: string): Promise<void> {
  for (;;) {
    const ready = await call(app.url, 'GET', '/readyz').catch(() => null);
    if (ready?.status === 200) return reportFigure(`${name}: ready again after`, `${Date.now() - since} ms`);
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
    else noted(answer);
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

/**
 * An outage as merchants and shoppers live it: payments under way, webhooks falling due,
 * `down()` takes the database away, every surface is checked meanwhile (and `meanwhile()`),
 * `up()` brings one back; the same Obolus must serve again and keep every guarantee.
 */
export async function expectToLiveThrough(
  app: ObolusOnDatabase,
  outage: {
    down(): Promise<void>;
    meanwhile?(): Promise<void>;
    up(): Promise<void>;
    /** SQL on the database that serves after the outage. */
    query(sql: string): Promise<Array<Record<string, unknown>>>;
  },
): Promise<void> {
  const load = startPaymentLoad(app);
  await until(() => load.record.paid.size >= 3);
  const webhooks = await webhooksDueDuringTheOutage(app);
  const [id, { clientSecret }] = [...load.record.created][0] as [string, { clientSecret: string }];

  await outage.down();
  await expectUnavailableEverywhere(app, { id, clientSecret });
  await outage.meanwhile?.();
  await webhooks.due();
  expectAlive(app);

  await outage.up();
  const back = Date.now();
  await readyAgain(app, back, 'outage');
  const created = load.record.created.size;
  // The load gets through again (a hang guard, not a figure: the test's own timeout is longer).
  await until(() => load.record.created.size > created + 3, 60_000);
  const record = await load.stop();
  expectAlive(app);
  expect(record.answers.some((answer) => answer.status === 503)).toBe(true);
  await expectGuarantees(app, record, outage.query);
  expect(webhooks.deliveredAfter(back)).toBe(true);
  reportAnswerTimes('outage');
}
