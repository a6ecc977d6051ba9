import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type ObolusOnDatabase, startObolusOn, startWorker } from './support/outage.ts';
import {
  expectAlive,
  expectApiUnavailable,
  expectEndedByDeadline,
  expectToLiveThrough,
  readyAgain,
  reportAnswerTimes,
} from './support/outage-checks.ts';
import { type PrivateCluster, startPrivateCluster } from './support/private-postgres.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';

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
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    primary = await startPrivateCluster();
    replica = await primary.replica();
    address = await startTcpProxy([{ host: '127.0.0.1', port: primary.port }]);
    const url = `postgres://postgres@127.0.0.1:${address.port}/postgres`;
    app = await startObolusOn(url);
    // `obolus worker` sends webhooks beside serve's own dispatcher, through the same address.
    worker = await startWorker(url);
  }, 60_000);
  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    await app?.close();
    await address?.close();
    await primary?.remove();
  });

  it('lives through the primary crashing and the replica taking over, and loses nothing acknowledged', async () => {
    await expectToLiveThrough(app, {
      down: () => primary.crash(),
      // The address moves before the replica is promoted: a write meets a read-only standby,
      // a 503 too, and /readyz drains the process meanwhile.
      meanwhile: async () => {
        address.point({ host: '127.0.0.1', port: replica.port });
        expectApiUnavailable(
          await call(app.url, 'POST', '/api/v1/payment-intents', {
            key: app.shop.secretKey,
            body: { amount: 900, currency: 'USD', mode: 'sandbox' },
          }),
        );
        expect((await call(app.url, 'GET', '/readyz')).status).toBe(503);
      },
      up: () => replica.promote(),
      query: (sql) => replica.query(sql),
    });
    expect(worker.child.exitCode).toBeNull();
    expect(worker.output()).toContain('webhook dispatch works again');
  }, 120_000);

  it('a network partition: 503s the database deadlines wrote while nothing gets through, served again once it heals', async () => {
    const key = app.shop.secretKey;
    const before = await call(app.url, 'POST', '/api/v1/payment-intents', {
      key,
      body: { amount: 1200, currency: 'USD', mode: 'sandbox' },
    });
    expect(before.status).toBe(200);
    address.partition(true);
    // Pooled connections hear nothing (the statement deadline), new ones never connect (the connect timeout).
    const answers = await Promise.all([
      call(app.url, 'POST', '/api/v1/payment-intents', {
        key,
        body: { amount: 1300, currency: 'USD', mode: 'sandbox' },
      }),
      call(app.url, 'GET', `/api/v1/payment-intents/${before.json.id}`, { key }),
      call(app.url, 'GET', '/api/v1/payment-intents?limit=3', { key }),
      call(app.url, 'GET', '/api/v1/events?limit=3', { key }),
    ]);
    for (const answer of answers) expectApiUnavailable(answer);
    // Still partitioned: every answer was ended by a deadline (nothing comes back to end it otherwise).
    await expectEndedByDeadline(app, answers);
    expect((await call(app.url, 'GET', '/readyz')).status).toBe(503);
    expectAlive(app);
    reportAnswerTimes('partition');
    address.partition(false);
    await readyAgain(app, Date.now(), 'partition');
    expect((await call(app.url, 'GET', `/api/v1/payment-intents/${before.json.id}`, { key })).status).toBe(200);
  }, 60_000);
});
