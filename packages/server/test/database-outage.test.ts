import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  expectAlive,
  expectGuarantees,
  expectUnavailableEverywhere,
  type ObolusOnDatabase,
  RECOVER_WITHIN_MS,
  recoveryTime,
  startObolusOn,
  startPaymentLoad,
  webhooksDueDuringTheOutage,
} from './support/outage.ts';
import { type PrivateCluster, startPrivateCluster } from './support/private-postgres.ts';
import { until } from './support/until.ts';

/**
 * PostgreSQL crashes (`pg_ctl stop -m immediate`) under load and comes back: Obolus
 * (`serve --workers 2`, `obolus listen`) lives through it, answers 503 meanwhile, and recovers
 * by itself (decision 0220). A private cluster: never the machine's shared server.
 */
const POSTGRES = existsSync('/usr/lib/postgresql/15/bin/initdb');
if (!POSTGRES) console.warn('database-outage: skipped, no PostgreSQL 15 binaries in /usr/lib/postgresql/15/bin');

describe.skipIf(!POSTGRES)('PostgreSQL crash and restart under load', () => {
  let cluster: PrivateCluster;
  let app: ObolusOnDatabase;
  beforeAll(async () => {
    cluster = await startPrivateCluster();
    app = await startObolusOn(cluster.url());
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await cluster?.remove();
  });

  it('lives through the crash, answers 503 meanwhile, recovers without a restart and loses nothing acknowledged', async () => {
    const load = startPaymentLoad(app);
    await until(() => load.record.paid.size >= 3);
    const webhooks = await webhooksDueDuringTheOutage(app);
    const [id, { clientSecret }] = [...load.record.created][0]!;

    await cluster.crash();
    await expectUnavailableEverywhere(app, { id, clientSecret });
    await webhooks.due();
    expectAlive(app);

    await cluster.start();
    const restarted = Date.now();
    expect(await recoveryTime(app, restarted)).toBeLessThan(RECOVER_WITHIN_MS);
    const created = load.record.created.size;
    await until(() => load.record.created.size > created + 3, RECOVER_WITHIN_MS);
    const record = await load.stop();
    expectAlive(app);
    expect(record.answers.some((answer) => answer.status === 503)).toBe(true);

    await expectGuarantees(app, record, (sql) => cluster.query(sql));
    expect(webhooks.deliveredAfter(restarted)).toBe(true);
    // Every background loop says it failed once and works again.
    const log = app.serve.output();
    for (const line of [
      'webhook dispatch works again',
      'expiry sweeps work again',
      'rate-limit counters are synced again',
    ]) {
      expect(log).toContain(line);
    }
    // `obolus listen` told of the API being away, and forwards again.
    const after = await call(app.url, 'POST', '/api/v1/payment-intents', {
      key: app.shop.secretKey,
      body: { amount: 777, currency: 'USD', mode: 'sandbox' },
    });
    await until(() => app.listened.received.some((w) => w.json?.data?.object?.id === after.json.id));
    expect(app.listenOutput()).toContain('Connected to the API again.');
  }, 120_000);
});
