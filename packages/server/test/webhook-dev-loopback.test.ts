import { describe, expect, it } from 'vitest';
import { WebhookDispatcher } from '../src/workers/webhooks/dispatcher.ts';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';
import { useReceiver, verifyAsSent } from './support/webhook-receiver.ts';

/** Decision 0090: on a developer machine, sandbox endpoints may target loopback; live ones never. */
describe.each(ENGINES)('sandbox webhooks to loopback on a developer machine (%s)', (engine) => {
  const { t, shop } = useTestServer(engine, {
    config: { webhooksAllowLoopback: false, sandboxWebhooksAllowLoopback: true, webhooksPollMs: 0 },
    withAccount: true,
  });
  const receiver = useReceiver();

  const endpoint = (url: string, mode?: string) =>
    t.call('POST', '/api/v1/webhook-endpoints', {
      key: shop.secretKey,
      body: { url, enabled_events: ['*'], ...(mode ? { mode } : {}) },
    });

  it('accepts a sandbox endpoint on localhost and delivers its events there, verifiable', async () => {
    const created = await endpoint(receiver.url.replace('127.0.0.1', 'localhost'), 'sandbox');
    expect(created.status).toBe(200);
    await t.call('POST', '/api/v1/payment-intents', {
      key: shop.secretKey,
      body: { amount: 2000, currency: 'USD', mode: 'sandbox' },
    });
    await new WebhookDispatcher(t.server.services).runOnce();
    expect(receiver.received.map((w) => w.json.type)).toEqual(['payment_intent.created']);
    expect(verifyAsSent(created.json.secret, receiver.received[0]!)).toMatchObject({ mode: 'sandbox' });
  });

  it('never stores nor returns what a loopback receiver answers (issue 25 item 4: no read-SSRF)', async () => {
    receiver.reply = () => ({ status: 200, body: 'redis_version:7.2.4\r\nrole:master' });
    const created = await endpoint(receiver.url, 'sandbox');
    await t.call('POST', '/api/v1/payment-intents', {
      key: shop.secretKey,
      body: { amount: 2000, currency: 'USD', mode: 'sandbox' },
    });
    await new WebhookDispatcher(t.server.services).runOnce();
    const log = await t.call('GET', `/api/v1/webhook-endpoints/${created.json.id}/attempts`, { key: shop.secretKey });
    expect(log.json.data.length).toBeGreaterThan(0);
    for (const attempt of log.json.data) expect(attempt).toMatchObject({ status_code: 200, response_body: null });
    expect(log.text).not.toContain('redis_version');
    const stored = await t.server.services.database.db
      .selectFrom('webhook_attempts')
      .select('response_body')
      .where('response_body', 'is not', null)
      .execute();
    expect(stored).toEqual([]);
  });

  it('still refuses loopback for a live endpoint, and private addresses for any', async () => {
    const live = await endpoint('https://127.0.0.1/hooks');
    expect(live.status).toBe(400);
    expect(live.json.error).toMatchObject({ param: 'url', message: expect.stringMatching(/loopback/) });
    const privateSandbox = await endpoint('http://10.0.0.5/hooks', 'sandbox');
    expect(privateSandbox.status).toBe(400);
    expect(privateSandbox.json.error.message).toMatch(/private/);
  });
});
