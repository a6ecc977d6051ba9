import { describe, expect, it } from 'vitest';
import { WebhookDispatcher } from '../src/workers/webhooks/dispatcher.ts';
import { ENGINES } from './support/engines.ts';
import { WEBHOOKS_BY_HAND } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';
import { useReceiver, verifyAsSent } from './support/webhook-receiver.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

/** Issue 27: the lifecycle's new events reach a webhook endpoint that asked for them, signed, and only those. */
describe.each(ENGINES)('the lifecycle events as webhooks (%s)', (engine) => {
  const { t } = useTestServer(engine, { config: WEBHOOKS_BY_HAND });
  const receiver = useReceiver();

  it('payment_intent.canceled, payment_intent.amount_capturable_updated, refund.created and dispute.created are delivered', async () => {
    const shop = await t.newAccount();
    const types = [
      'payment_intent.canceled',
      'payment_intent.amount_capturable_updated',
      'refund.created',
      'dispute.created',
    ];
    const endpoint = await t.call('POST', '/api/v1/webhook-endpoints', {
      key: shop.secretKey,
      body: { url: receiver.url, enabled_events: types, mode: 'sandbox' },
    });
    expect(endpoint.status).toBe(200);
    const canceled = await createIntent(t, shop.secretKey);
    await t.call('POST', `/api/v1/payment-intents/${canceled.id}/cancel`, { key: shop.secretKey });
    const manual = await createIntent(t, shop.secretKey, { capture_method: 'manual' });
    await confirm(t, shop.clientKey, manual.client_secret, card('4242424242424242'));
    const paid = await createIntent(t, shop.secretKey);
    const tx = (await confirm(t, shop.clientKey, paid.client_secret, card('4242424242424242'))).json.transaction_id;
    const refund = await t.call('POST', `/api/v1/transactions/${tx}/refunds`, {
      key: shop.secretKey,
      body: { amount: 100 },
    });
    await t.call('POST', `/api/v1/sandbox/transactions/${tx}/chargeback`, { key: shop.secretKey });

    await new WebhookDispatcher(t.server.services).runOnce();
    const bodies = receiver.received.map(
      (w) => verifyAsSent(endpoint.json.secret, w) as { type: string; data: { object: { id: string } } },
    );
    expect(bodies.map((b) => b.type).sort()).toEqual([...types].sort());
    const of = (type: string) => bodies.find((b) => b.type === type)?.data.object.id;
    expect(of('payment_intent.canceled')).toBe(canceled.id);
    expect(of('payment_intent.amount_capturable_updated')).toBe(manual.id);
    expect(of('refund.created')).toBe(refund.json.id);
    expect(of('dispute.created')).toBe(`dp_${tx}`);
  });
});
