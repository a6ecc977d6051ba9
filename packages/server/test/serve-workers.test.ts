import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { TX_STATUS } from '../src/domain/transactions.ts';
import { runCli } from './support/cli.ts';
import { createTestDatabase, PG_URL } from './support/engines.ts';
import { useSecondProcess } from './support/second-process.ts';
import { freePort, WEBHOOKS_BY_HAND } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';
import { useReceiver } from './support/webhook-receiver.ts';
import { card, createIntent, encryptCard } from './support/widget-client.ts';

describe('OBOLUS_DATABASE_POOL_SIZE: the PostgreSQL pool of each process', () => {
  it('is 10 by default and takes 1..1000', () => {
    expect(loadConfig({}).databasePoolSize).toBe(10);
    expect(loadConfig({ OBOLUS_DATABASE_POOL_SIZE: '1' }).databasePoolSize).toBe(1);
    expect(loadConfig({ OBOLUS_DATABASE_POOL_SIZE: '1000' }).databasePoolSize).toBe(1000);
  });

  it('refuses anything else, naming the variable', () => {
    for (const bad of ['0', '1001', '-1', '2.5', 'ten', '']) {
      expect(() => loadConfig({ OBOLUS_DATABASE_POOL_SIZE: bad })).toThrow(
        /OBOLUS_DATABASE_POOL_SIZE must be 1\.\.1000/,
      );
    }
  });
});

describe('obolus serve --workers on SQLite', () => {
  it('refuses more than one process, saying why and what to do, with the usage exit code', async () => {
    const db = await createTestDatabase('sqlite');
    try {
      const run = await runCli(['serve', '--workers', '2'], { OBOLUS_DATABASE_URL: db.url, PORT: '0' });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--workers 2 needs PostgreSQL');
      expect(run.stderr).toContain('one writer');
      expect(run.stdout).toBe('');
    } finally {
      await db.drop();
    }
  });

  it('refuses a number of workers that is not 1..64, naming the option', async () => {
    const runs = await Promise.all(['0', '65'].map((bad) => runCli(['serve', '--workers', bad], {})));
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("option '--workers <n>'");
    }
  }, 60_000);
});

describe.skipIf(!PG_URL)('obolus serve --workers 2 on PostgreSQL', () => {
  let metricsPort: number;
  const { t, shop } = useTestServer('postgres', {
    config: WEBHOOKS_BY_HAND,
    withAccount: true,
  });
  const receiver = useReceiver();
  const cluster = useSecondProcess(
    t,
    async () => {
      metricsPort = await freePort();
      return {
        args: ['--workers', '2'],
        env: {
          OBOLUS_WEBHOOKS_POLL_MS: '50',
          OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: 'true',
          OBOLUS_DATABASE_POOL_SIZE: '4',
          OBOLUS_METRICS_PORT: String(metricsPort),
        },
      };
    },
    90_000,
  );

  it('40 concurrent confirms of one intent spread over both workers: one Settled charge, 39 refusals', async () => {
    const intent = await createIntent(t, shop.secretKey);
    // One ciphertext each (a ciphertext is good for one use): only the intent's own rule can refuse them.
    const cards = await Promise.all(
      Array.from({ length: 40 }, () => encryptCard(t, intent.id, card('4242424242424242'))),
    );
    // A fresh connection each: the cluster hands connections to its workers in turn.
    const answers = await Promise.all(
      cards.map(async (jwe) => {
        const res = await fetch(`${cluster.url}/embed/v1/confirm`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify({ pk: shop.clientKey, client_secret: intent.client_secret, mode: 'sandbox', card: jwe }),
        });
        return `${res.status} ${((await res.json()) as { error?: { code: string } }).error?.code ?? 'paid'}`;
      }),
    );
    // The losers are refused by the intent's own rule, whatever the card-testing limit (decision 0270).
    expect(answers.filter((a) => a === '200 paid')).toHaveLength(1);
    const refusals = answers.filter((a) => a !== '200 paid');
    expect(
      refusals.filter((a) => a === '409 payment_in_progress' || a === '400 payment_intent_unexpected_state'),
    ).toEqual(refusals);
    expect(refusals).toHaveLength(39);
    const txs = await t.server.services.repos.transactions.forIntent(shop.id, intent.id);
    expect(txs.map((tx) => tx.status)).toEqual([TX_STATUS.settled]);
  });

  it("one metrics listener for the cluster, counting every worker's requests", async () => {
    const missing = `/api/v1/payment-intents/${'0'.repeat(24)}`;
    const statuses = await Promise.all(
      Array.from({ length: 30 }, async () => {
        // A fresh connection each: the cluster hands connections to its workers in turn.
        const res = await fetch(`${cluster.url}${missing}`, {
          headers: { authorization: `Bearer ${shop.secretKey}`, connection: 'close' },
        });
        return res.status;
      }),
    );
    expect(statuses).toEqual(statuses.map(() => 404));
    const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(scraped.status).toBe(200);
    const line = (await scraped.text())
      .split('\n')
      .find((l) =>
        l.startsWith('obolus_http_requests_total{method="GET",route="/api/v1/payment-intents/:id",status="404"'),
      );
    expect(line?.split(' ').pop()).toBe('30');
  });

  it('both workers run the dispatcher, yet every event reaches the endpoint once', async () => {
    const endpoint = await t.call('POST', '/api/v1/webhook-endpoints', {
      key: shop.secretKey,
      body: { url: receiver.url, enabled_events: ['payment_intent.created'], mode: 'sandbox' },
    });
    expect(endpoint.status).toBe(200);
    const ids = await Promise.all(Array.from({ length: 30 }, async () => (await createIntent(t, shop.secretKey)).id));
    const deadline = Date.now() + 30_000;
    const delivered = () => receiver.received.filter((w) => ids.includes(w.json.data.object.id));
    while (delivered().length < ids.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500)); // room for a duplicate to show up
    const webhookIds = delivered().map((w) => w.headers['webhook-id']);
    expect(new Set(webhookIds).size).toBe(ids.length);
    expect(webhookIds).toHaveLength(ids.length);
    expect(receiver.maxConcurrentSameId()).toBe(1);
  });
});
