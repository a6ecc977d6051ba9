import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchant, signInHttp } from './support/dashboard.ts';
import { ENGINES } from './support/engines.ts';
import { startTestServer, type TestAccount, type TestServer } from './support/server.ts';
import { createSettledTransaction } from './support/transactions.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

const paymentIds = (page: string) =>
  [...page.matchAll(/href="\/dashboard\/payments\/([0-9a-f]{24})"/g)].map((m) => m[1]);

/** A sandbox payment, through the widget's API, of an intent with a reference: its transaction id. */
async function payWithReference(t: TestServer, shop: TestAccount, reference: string): Promise<string> {
  const intent = await createIntent(t, shop.secretKey, { reference, amount: 999 });
  const paid = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
  expect(paid.status).toBe(200);
  const [tx] = await t.server.services.repos.transactions.forIntent(shop.id, intent.id);
  return tx?.id ?? '';
}

describe.each(ENGINES)('dashboard pages (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine, { config: { webhooksAllowLoopback: true, webhooksPollMs: 0 } });
  });
  afterAll(() => t.close());

  it('lists payments newest first, 25 a page by keyset, filtered by status, amount, date, external id and mode', async () => {
    const shop = await merchant(t);
    const made: string[] = [];
    for (let i = 0; i < 27; i++) {
      made.push((await createSettledTransaction(t, shop, { amount: 1000 + i, externalid: `order-${i}` })).id);
    }
    const declined = await createSettledTransaction(t, shop, { amount: 777, status: 30 });
    const live = await createSettledTransaction(t, shop, { amount: 5000, mode: 'live' });
    const session = await signInHttp(t, shop.email);
    const first = await (await session.get('/dashboard/payments')).text();
    const newestFirst = [declined.id, ...made.slice().reverse()];
    expect(paymentIds(first)).toEqual(newestFirst.slice(0, 25));
    const next = /href="(\/dashboard\/payments\?after=[0-9a-f]{24})"/.exec(first)?.[1] ?? '';
    expect(paymentIds(await (await session.get(next)).text())).toEqual(newestFirst.slice(25));

    const get = async (query: string) => paymentIds(await (await session.get(`/dashboard/payments?${query}`)).text());
    expect(await get('status=30')).toEqual([declined.id]);
    expect(await get('min=10.05&max=10.07')).toEqual([made[7], made[6], made[5]]);
    expect(await get('externalid=order-3')).toEqual([made[3]]);
    const referenced = await payWithReference(t, shop, 'INV-2026-9');
    expect(await get('reference=INV-2026-9')).toEqual([referenced]);
    expect(await get('reference=INV-2026-')).toEqual([]);
    const today = new Date(t.server.services.clock.now()).toISOString().slice(0, 10);
    expect(await get(`from=${today}&to=${today}&status=30`)).toEqual([declined.id]);
    expect(await get('to=2000-01-01')).toEqual([]);
    const bad = await session.get('/dashboard/payments?min=1.234');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('min must be an amount like 12.50.');

    expect((await session.post('/dashboard/mode', { mode: 'live', back: '/dashboard/payments' })).status).toBe(303);
    expect(paymentIds(await (await session.get('/dashboard/payments')).text())).toEqual([live.id]);
    expect(await (await session.get('/dashboard')).text()).toContain('$50.00');
  });

  it('simulates a chargeback on a sandbox payment only, once', async () => {
    const shop = await merchant(t);
    const sandbox = await createSettledTransaction(t, shop);
    const live = await createSettledTransaction(t, shop, { mode: 'live' });
    const session = await signInHttp(t, shop.email);
    const page = await (await session.get(`/dashboard/payments/${sandbox.id}`)).text();
    expect(page).toContain('Simulate a chargeback (sandbox)');
    expect((await session.post(`/dashboard/payments/${sandbox.id}/chargeback`)).status).toBe(303);
    expect((await t.server.services.repos.transactions.find(shop.id as never, sandbox.id))?.chargeback).toBe(true);
    expect(await (await session.get(`/dashboard/payments/${sandbox.id}`)).text()).not.toContain(
      'Simulate a chargeback',
    );
    expect((await session.post(`/dashboard/payments/${sandbox.id}/chargeback`)).status).toBe(409);
    await session.post('/dashboard/mode', { mode: 'live' });
    expect(await (await session.get(`/dashboard/payments/${live.id}`)).text()).not.toContain('Simulate a chargeback');
    const refused = await session.post(`/dashboard/payments/${live.id}/chargeback`);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('Chargebacks can be simulated on sandbox transactions only');
  });

  it('creates, edits, deactivates and reactivates a product, within the API limits', async () => {
    const shop = await merchant(t);
    const session = await signInHttp(t, shop.email);
    const create = { name: 'Tea', description: 'Green tea 100 g', amount: '7.5', mode: 'sandbox', success_url: '' };
    expect((await session.post('/dashboard/products', { ...create, name: 'x'.repeat(101) })).status).toBe(400);
    expect((await session.post('/dashboard/products', { ...create, amount: '0' })).status).toBe(400);
    expect((await session.post('/dashboard/products', create)).status).toBe(303);
    const [product] = (await t.call('GET', '/api/v1/products', { key: shop.secretKey })).json.data;
    expect(product).toMatchObject({ name: 'Tea', amount: 750, mode: 'sandbox', active: true });
    const list = await (await session.get('/dashboard/products')).text();
    expect(list).toContain(`value="${t.server.services.config.baseUrl}/${product.id}"`);

    const edit = { name: 'Black tea', description: '', amount: '8.00', success_url: '' };
    expect((await session.post(`/dashboard/products/${product.id}`, edit)).status).toBe(303);
    expect((await session.post(`/dashboard/products/${product.id}/active`, { active: 'false' })).status).toBe(303);
    const after = (await t.call('GET', `/api/v1/products/${product.id}`, { key: shop.secretKey })).json;
    expect(after).toMatchObject({ name: 'Black tea', amount: 800, description: null, active: false });
    expect((await session.post(`/dashboard/products/${product.id}/active`, { active: 'true' })).status).toBe(303);
    expect((await t.call('GET', `/api/v1/products/${product.id}`, { key: shop.secretKey })).json.active).toBe(true);
  });

  it('adds a webhook endpoint (secret shown once), rolls its secret once per form, resends an event', async () => {
    const shop = await merchant(t);
    const session = await signInHttp(t, shop.email);
    const added = await session.post('/dashboard/developer/webhooks', { url: 'http://127.0.0.1:9/hooks' });
    expect(added.status).toBe(200);
    const page = await added.text();
    const secret = /<code class="secret">(whsec_[^<]+)<\/code>/.exec(page)?.[1];
    expect(secret).toBeDefined();
    const id = /\/dashboard\/developer\/webhooks\/(we_[0-9A-Za-z]+)\/roll/.exec(page)?.[1] ?? '';
    const again = await (await session.get(`/dashboard/developer/webhooks/${id}`)).text();
    expect(again).not.toContain(secret);
    const stamp = /name="secret_of" value="(\d+)"/.exec(again)?.[1] ?? '';
    const rolled = await session.post(`/dashboard/developer/webhooks/${id}/roll`, { grace: '0', secret_of: stamp });
    expect(rolled.status).toBe(200);
    const newSecret = /<code class="secret">(whsec_[^<]+)<\/code>/.exec(await rolled.text())?.[1];
    expect(newSecret).not.toBe(secret);
    // The same form sent again (a reload) rolls nothing.
    expect(
      (await session.post(`/dashboard/developer/webhooks/${id}/roll`, { grace: '0', secret_of: stamp })).status,
    ).toBe(409);
    const stored = await t.server.services.repos.webhookEndpoints.find(shop.id as never, id);
    expect(stored?.secret).toBe(newSecret);

    const { transaction } = await createSettledTransaction(t, shop);
    const [event] = (
      await t.call('GET', `/api/v1/events?object_id=${transaction.paymentIntentId}`, { key: shop.secretKey })
    ).json.data;
    expect((await session.post(`/dashboard/developer/webhooks/${id}/resend`, { event_id: event.id })).status).toBe(303);
    expect((await session.post(`/dashboard/developer/webhooks/${id}/resend`, { event_id: 'evt_nope' })).status).toBe(
      404,
    );
  });
});
