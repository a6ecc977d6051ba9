import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';

describe.each(ENGINES)('operations (%s)', (engine) => {
  const { t, shop } = useTestServer(engine, { withAccount: true });

  it('/healthz and /readyz answer, readyz after checking the database', async () => {
    expect((await t.call('GET', '/healthz')).json).toEqual({ status: 'ok' });
    expect((await t.call('GET', '/readyz')).json).toEqual({ status: 'ready', database: engine });
  });

  it('/metrics is not on the public port', async () => {
    expect((await t.call('GET', '/metrics')).status).toBe(404);
  });

  it('/metrics counts requests by route template and status, with a latency histogram', async () => {
    await t.call('POST', '/api/v1/payment-intents', {
      key: shop.secretKey,
      body: { amount: 1, currency: 'USD', mode: 'sandbox' },
    });
    await t.call('GET', `/api/v1/payment-intents/${'a'.repeat(24)}`, { key: shop.secretKey });
    // Its own listener, on loopback (decision 0074).
    expect(t.server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const metrics = await fetch(t.server.metricsUrl as string);
    const res = { headers: metrics.headers, text: await metrics.text() };
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text).toMatch(
      /obolus_http_requests_total\{method="POST",route="\/api\/v1\/payment-intents",status="200"\} [1-9]/,
    );
    expect(res.text).toMatch(
      /obolus_http_requests_total\{method="GET",route="\/api\/v1\/payment-intents\/:id",status="404"\} 1/,
    );
    expect(res.text).toContain('obolus_http_request_duration_seconds_bucket');
    expect(res.text).not.toContain('a'.repeat(24));
  });

  it('logs carry the request id and never the secret key or card data', async () => {
    const card = { number: '4242424242424242', cvc: '987', exp_month: 12, exp_year: 2030 };
    const res = await t.call('POST', '/api/v1/payment-intents', {
      key: shop.secretKey,
      body: { amount: 1, currency: 'USD', card },
    });
    expect(res.status).toBe(400);
    // Something that logs a card-carrying object by mistake is redacted too.
    t.server.app.log.info(
      { card, body: { number: card.number, cvc: card.cvc }, authorization: `Bearer ${shop.secretKey}` },
      'probe',
    );
    const logs = t.logs();
    expect(logs).toContain(res.headers.get('request-id'));
    expect(logs).toContain('probe');
    expect(logs).not.toContain(shop.secretKey);
    expect(logs).not.toContain('4242424242424242');
    expect(logs).not.toMatch(/"cvc":"987"/);
  });

  it('the secret key is stored only as a digest', async () => {
    const { db } = t.server.services.database;
    const rows = await sql<Record<string, unknown>>`select * from secret_keys`.execute(db);
    expect(JSON.stringify(rows.rows)).not.toContain(shop.secretKey);
    expect(JSON.stringify(rows.rows)).not.toContain(shop.secretKey.slice(3, 20));
    if (engine === 'sqlite') {
      await t.server.services.database.db.executeQuery(sql`pragma wal_checkpoint(FULL)`.compile(db));
      const bytes = readFileSync(t.database.url).toString('latin1');
      expect(bytes).toContain(shop.clientKey); // proof the file holds the account
      expect(bytes).not.toContain(shop.secretKey);
    }
  });
});
