import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Listening, type ObolusOnDatabase, startListen, startObolusOn } from './support/outage.ts';
import { expectToLiveThrough } from './support/outage-checks.ts';
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
  let listen: Listening;
  beforeAll(async () => {
    cluster = await startPrivateCluster();
    // The cluster's primary and two workers, each with its pools, and `obolus listen` beside them.
    app = await startObolusOn(cluster.url(), { workers: 2 });
    listen = await startListen(app);
  }, 60_000);
  afterAll(async () => {
    await listen?.close();
    await app?.close();
    await cluster?.remove();
  });

  it('lives through the crash, answers 503 meanwhile, recovers without a restart and loses nothing acknowledged', async () => {
    await expectToLiveThrough(app, {
      down: () => cluster.crash(),
      up: () => cluster.start(),
      query: (sql) => cluster.query(sql),
    });
    // Every background loop said it failed once, and that it works again.
    const log = app.serve.output();
    for (const line of [
      'webhook dispatch works again',
      'expiry sweeps work again',
      'rate-limit counters are synced again',
    ]) {
      expect(log).toContain(line);
    }
    // `obolus listen` was told the API was away, and forwards again.
    const after = await call(app.url, 'POST', '/api/v1/payment-intents', {
      key: app.shop.secretKey,
      body: { amount: 777, currency: 'USD', mode: 'sandbox' },
    });
    await until(() => listen.received.received.some((w) => w.json?.data?.object?.id === after.json.id));
    expect(listen.output()).toContain('Connected to the API again.');
    expect(listen.child.exitCode).toBeNull();
  }, 120_000);

  it('a worker that dies while the database is away is replaced once it is back', async () => {
    const primary = app.serve.child.pid as number;
    const workers = childrenOf(primary);
    expect(workers).toHaveLength(2);
    await cluster.crash();
    process.kill(workers[0] as number, 'SIGKILL');
    // A new worker starts, cannot migrate, exits; the primary says so and tries again.
    await until(() => app.serve.output().includes('could not replace a worker'), 30_000);
    await cluster.start();
    await until(() => app.serve.output().includes('worker replaced'), 30_000);
    expect(childrenOf(primary)).toHaveLength(2);
    expect(app.serve.child.exitCode).toBeNull();
    expect((await call(app.url, 'GET', '/readyz')).status).toBe(200);
  }, 60_000);
});

const childrenOf = (pid: number) =>
  execFileSync('pgrep', ['-P', String(pid)])
    .toString()
    .trim()
    .split('\n')
    .map(Number);
