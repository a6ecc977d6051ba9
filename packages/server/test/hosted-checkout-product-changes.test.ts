import { describe, expect, it } from 'vitest';
import type { Product } from '../../node/src/index.ts';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm } from './support/widget-client.ts';

/**
 * Issue 25 item 8: a hosted-checkout intent stayed payable for 7 days after its product's
 * price rose or it was deactivated ($500 product paid at $1). Confirm now checks the product.
 */
describe.each(ENGINES)('hosted-checkout intents follow their product (%s)', (engine) => {
  const { t, shop } = useTestServer(engine, { withAccount: true });

  const product = async () =>
    (
      await t.call<Product>('POST', '/api/v1/products', {
        key: shop.secretKey,
        body: { name: 'Print', amount: 100, currency: 'USD', mode: 'sandbox' },
      })
    ).json;
  const started = async (productId: string) => {
    const res = await t.call('POST', `/${productId}/checkout`, { body: {} });
    expect(res.status).toBe(200);
    return res.json.client_secret as string;
  };
  const update = (id: string, body: Record<string, unknown>) =>
    t.call('POST', `/api/v1/products/${id}`, { key: shop.secretKey, body });

  it('refuses to pay an intent made before the price changed, and one of a deactivated product; pays a fresh one', async () => {
    const raised = await product();
    const old = await started(raised.id);
    expect((await update(raised.id, { amount: 50_000 })).status).toBe(200);
    const refused = await confirm(t, shop.clientKey, old, card('4242424242424242'));
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: 'payment_intent_unexpected_state' });
    expect(refused.json.error.message).toContain('This product changed');
    const fresh = await started(raised.id);
    const paid = await confirm(t, shop.clientKey, fresh, card('4242424242424242'));
    expect(paid.json).toMatchObject({ status: 'succeeded' });

    const retired = await product();
    const before = await started(retired.id);
    expect((await update(retired.id, { active: false })).status).toBe(200);
    expect((await confirm(t, shop.clientKey, before, card('4242424242424242'))).status).toBe(400);
    // Back on sale at the same price: the intent is payable again.
    expect((await update(retired.id, { active: true })).status).toBe(200);
    expect((await confirm(t, shop.clientKey, before, card('4242424242424242'))).json).toMatchObject({
      status: 'succeeded',
    });
  });
});
