import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  expectAlive,
  expectApiUnavailable,
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
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';
import { until } from './support/until.ts';

/**
 * A failover: the primary crashes, its synchronous streaming replica (pg_basebackup) is promoted
 * and the stable address Obolus connects to (a TCP proxy here, haproxy or PgBouncer in
 * production: docs/operations.md) is pointed at it. The same guarantees as a restart
 * (database-outage.test.ts, decision 0220).
 */
const POSTGRES = existsSync('/usr/lib/postgresql/15/bin/pg_basebackup');
if (!POSTGRES) console.warn('database-failover: skipped, no PostgreSQL 15 binaries in /usr/lib/postgresql/15/bin');

describe.skipIf(!POSTGRES)('PostgreSQL failover to a promoted replica under load', () => {
  let primary: PrivateCluster;
  let replica: PrivateCluster;
  let address: TcpProxy;
  let app: ObolusOnDatabase;
  beforeAll(async () => {
    primary = await startPrivateCluster();
    replica = await primary.replica();
    address = await startTcpProxy([{ host: '127.0.0.1', port: primary.port }]);
    app = await startObolusOn(`postgres://postgres@127.0.0.1:${address.port}/postgres`);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await address?.close();
    await primary?.remove();
  });

  it('lives through the primary crashing and the replica taking over, and loses nothing acknowledged', async () => {
    const load = startPaymentLoad(app);
    await until(() => load.record.paid.size >= 3);
    const webhooks = await webhooksDueDuringTheOutage(app);
    const [id, { clientSecret }] = [...load.record.created][0]!;

    await primary.crash();
    await expectUnavailableEverywhere(app, { id, clientSecret });
    // The address moves before the replica is promoted: writes meet a read-only standby, a 503 too.
    address.point({ host: '127.0.0.1', port: replica.port });
    const onStandby = await call(app.url, 'POST', '/api/v1/payment-intents', {
      key: app.shop.secretKey,
      body: { amount: 900, currency: 'USD', mode: 'sandbox' },
    });
    expectApiUnavailable(onStandby);
    expect((await call(app.url, 'GET', '/readyz')).status).toBe(503);
    await webhooks.due();
    expectAlive(app);

    await replica.promote();
    const promoted = Date.now();
    expect(await recoveryTime(app, promoted)).toBeLessThan(RECOVER_WITHIN_MS);
    const created = load.record.created.size;
    await until(() => load.record.created.size > created + 3, RECOVER_WITHIN_MS);
    const record = await load.stop();
    expectAlive(app);

    await expectGuarantees(app, record, (sql) => replica.query(sql));
    expect(webhooks.deliveredAfter(promoted)).toBe(true);
  }, 120_000);
});
