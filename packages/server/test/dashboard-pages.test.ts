import { describe, expect, it } from 'vitest';
import { DAY, ManualClock, MINUTE } from '../src/clock.ts';
import { expireDueIntents } from '../src/domain/payments/expire.ts';
import { paymentDeps } from '../src/services.ts';
import { merchant, signInHttp } from './support/dashboard.ts';
import { ENGINES } from './support/engines.ts';
import { type TestAccount, type TestServer, WEBHOOKS_BY_HAND } from './support/server.ts';
import { createSettledTransaction } from './support/transactions.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

const paymentIds = (page: string) =>
  [...page.matchAll(/<td><a href="\/dashboard\/payments\/([0-9a-f]{24})"/g)].map((m) => m[1]);

// Every object a millisecond apart, so "newest first" is one order on every run.
const clock = new ManualClock(Date.now());

/** A sandbox intent paid through the widget's API, after `declines` declined attempts: its id. */
async function payThroughWidget(t: TestServer, shop: TestAccount, body: object, declines = 0): Promise<string> {
  const intent = await createIntent(t, shop.secretKey, { amount: 999, ...body });
  for (let i = 0; i < declines; i++) {
    const declined = await confirm(t, shop.clientKey, intent.client_secret, card('4000000000000002'));
    expect(declined.json.status).toBe('failed');
    clock.advance(1);
  }
  const paid = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
  expect(paid.status).toBe(200);
  return intent.id;
}

describe.each(ENGINES)('dashboard pages (%s)', (engine) => {
  const { t } = useTestServer(engine, { clock, config: WEBHOOKS_BY_HAND });

  it('lists payment intents newest first, paid or not, 25 a page by keyset, filtered by status, amount, date, reference, external id and mode', async () => {
    const shop = await merchant(t);
    const made: string[] = [];
    for (let i = 0; i < 27; i++) {
      made.push((await createSettledTransaction(t, shop, { amount: 1000 + i, externalid: `order-${i}` })).intentId);
      clock.advance(1);
    }
    const declined = await createSettledTransaction(t, shop, { amount: 777, status: 30 });
    clock.advance(1);
    // Created through the API, nobody has tried to pay it yet: it is a payment all the same.
    const open = await createIntent(t, shop.secretKey, { amount: 1500, reference: 'CART-1', externalid: 'cart-1' });
    clock.advance(1);
    const live = await createSettledTransaction(t, shop, { amount: 5000, mode: 'live' });
    clock.advance(1);
    const session = await signInHttp(t, shop.email);
    const first = await (await session.get('/dashboard/payments')).text();
    const newestFirst = [open.id, declined.intentId, ...made.slice().reverse()];
    expect(paymentIds(first)).toEqual(newestFirst.slice(0, 25));
    const openRow = /<tr><td><a href="\/dashboard\/payments\/[0-9a-f]{24}">[\s\S]*?<\/tr>/.exec(first)?.[0] ?? '';
    expect(openRow).toContain(open.id);
    expect(openRow).toContain('Requires payment');
    expect(openRow).toContain('none yet');
    expect(openRow).toContain('CART-1');
    const next = /href="(\/dashboard\/payments\?after=[0-9a-f]{24})"/.exec(first)?.[1] ?? '';
    expect(paymentIds(await (await session.get(next)).text())).toEqual(newestFirst.slice(25));

    const get = async (query: string) => paymentIds(await (await session.get(`/dashboard/payments?${query}`)).text());
    expect(await get('status=failed')).toEqual([declined.intentId]);
    expect(await get('status=requires_payment')).toEqual([open.id]);
    expect(await get('status=settled&min=10.05&max=10.07')).toEqual([made[7], made[6], made[5]]);
    expect(await get('status=refunded')).toEqual([]);
    expect(await get('min=10.05&max=10.07')).toEqual([made[7], made[6], made[5]]);
    expect(await get('externalid=order-3')).toEqual([made[3]]);
    expect(await get('externalid=cart-1&status=requires_payment')).toEqual([open.id]);
    expect(await get('reference=CART-1')).toEqual([open.id]);
    // Paging keeps the filters: settled ones, 25 then 2.
    const settled = await (await session.get('/dashboard/payments?status=settled')).text();
    expect(paymentIds(settled)).toEqual(made.slice().reverse().slice(0, 25));
    const settledNext = /href="(\/dashboard\/payments\?status=settled&amp;after=[0-9a-f]{24})"/.exec(settled)?.[1];
    expect(paymentIds(await (await session.get((settledNext ?? '').replaceAll('&amp;', '&'))).text())).toEqual([
      made[1],
      made[0],
    ]);

    // A declined attempt and then a paid one: one payment, settled, with both attempts.
    const retried = await payThroughWidget(t, shop, { reference: 'INV-2026-9' }, 1);
    expect(await get('reference=INV-2026-9')).toEqual([retried]);
    expect(await get('reference=INV-2026-')).toEqual([]);
    const retriedRow = await (await session.get('/dashboard/payments?reference=INV-2026-9')).text();
    expect(retriedRow).toContain('Settled');
    expect(retriedRow).toContain('2 (1 failed)');
    const today = new Date(clock.now()).toISOString().slice(0, 10);
    expect(await get(`from=${today}&to=${today}&status=failed`)).toEqual([declined.intentId]);
    expect(await get('to=2000-01-01')).toEqual([]);
    const bad = await session.get('/dashboard/payments?min=1.234');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('min must be an amount like 12.50.');
    expect((await session.get('/dashboard/payments?status=30')).status).toBe(400);

    // Partly refunded through the dashboard: the list says so, and its filter finds it.
    const action = `/dashboard/payments/${made[4]}/refund`;
    expect((await session.post(action, await session.form(`${action}?amount=1.00`, action))).status).toBe(303);
    expect(await get('status=partially_refunded')).toEqual([made[4]]);

    expect((await session.post('/dashboard/mode', { mode: 'live', back: '/dashboard/payments' })).status).toBe(303);
    expect(paymentIds(await (await session.get('/dashboard/payments')).text())).toEqual([live.intentId]);
    expect(await get('status=requires_payment')).toEqual([]);
    expect(await (await session.get('/dashboard')).text()).toContain('$50.00');
  });

  it("shows a payment nobody has paid yet, sends an attempt's id to its payment, and expired ones are listed as such", async () => {
    const shop = await merchant(t);
    const open = await createIntent(t, shop.secretKey, { amount: 1234, reference: 'CART-9' });
    const retried = await payThroughWidget(t, shop, {}, 1);
    let session = await signInHttp(t, shop.email);
    const page = await session.get(`/dashboard/payments/${open.id}`);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('Payment of $12.34');
    expect(text).toContain('Requires payment');
    expect(text).toContain('No attempt to pay yet');
    expect(text).toContain('CART-9');
    expect(text).not.toContain('Refund…');
    const refused = await session.post(`/dashboard/payments/${open.id}/refund`, {
      amount: '100',
      once: 'r'.repeat(24),
    });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('Nothing was paid on this payment yet');

    const attempts = await t.server.services.repos.transactions.forIntent(shop.id, retried);
    expect(attempts.map((a) => a.status)).toEqual([30, 20]);
    const viaAttempt = await session.get(`/dashboard/payments/${attempts[0]?.id}`);
    expect(viaAttempt.status).toBe(303);
    expect(viaAttempt.headers.get('location')).toBe(`/dashboard/payments/${retried}#attempt-${attempts[0]?.id}`);
    const detail = await (await session.get(`/dashboard/payments/${retried}`)).text();
    for (const a of attempts) expect(detail).toContain(`id="attempt-${a.id}"`);
    expect(detail).toContain('card_declined');
    expect(detail).toContain('Refund…');

    // Past its 7 days the sweeper expires it: the list and the page say Expired.
    clock.advance(7 * DAY + MINUTE);
    await expireDueIntents(paymentDeps(t.server.services));
    session = await signInHttp(t, shop.email);
    expect(paymentIds(await (await session.get('/dashboard/payments?status=expired')).text())).toEqual([open.id]);
    expect(await (await session.get(`/dashboard/payments/${open.id}`)).text()).toContain('Expired');
  });

  it('simulates a chargeback on a sandbox payment only, once', async () => {
    const shop = await merchant(t);
    const sandbox = await createSettledTransaction(t, shop);
    const live = await createSettledTransaction(t, shop, { mode: 'live' });
    const session = await signInHttp(t, shop.email);
    const page = await (await session.get(`/dashboard/payments/${sandbox.intentId}`)).text();
    expect(page).toContain('Simulate a chargeback (sandbox)');
    expect((await session.post(`/dashboard/payments/${sandbox.intentId}/chargeback`)).status).toBe(303);
    expect((await t.server.services.repos.transactions.find(shop.id as never, sandbox.id))?.chargeback).toBe(true);
    expect(await (await session.get(`/dashboard/payments/${sandbox.intentId}`)).text()).not.toContain(
      'Simulate a chargeback',
    );
    expect((await session.post(`/dashboard/payments/${sandbox.id}/chargeback`)).status).toBe(409);
    await session.post('/dashboard/mode', { mode: 'live' });
    expect(await (await session.get(`/dashboard/payments/${live.intentId}`)).text()).not.toContain(
      'Simulate a chargeback',
    );
    const refused = await session.post(`/dashboard/payments/${live.id}/chargeback`);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('Chargebacks can be simulated on sandbox transactions only');
  });

  it('the sandbox / live switch filters products and webhook endpoints too, and new ones take its mode', async () => {
    const shop = await merchant(t);
    const key = { key: shop.secretKey };
    await t.call('POST', '/api/v1/products', {
      ...key,
      body: { name: 'Live tea', amount: 500, currency: 'USD', mode: 'live' },
    });
    for (const [mode, url] of [
      ['live', 'https://shop.example/live-hooks'],
      ['sandbox', 'http://127.0.0.1:9/sandbox-hooks'],
    ]) {
      const made = await t.call('POST', '/api/v1/webhook-endpoints', {
        ...key,
        body: { url, enabled_events: ['*'], mode },
      });
      expect(made.status).toBe(200);
    }
    const session = await signInHttp(t, shop.email);
    const made = await session.post(
      '/dashboard/products',
      await session.form('/dashboard/products', '/dashboard/products', { name: 'Test tea', amount: '1.00' }),
    );
    expect(made.status).toBe(303);
    const products = async () => (await session.get('/dashboard/products')).text();
    const developer = async () => (await session.get('/dashboard/developer')).text();
    expect(await products()).toContain('Test tea');
    expect(await products()).not.toContain('Live tea');
    expect(await developer()).toContain('/sandbox-hooks');
    expect(await developer()).not.toContain('/live-hooks');
    await session.post('/dashboard/mode', { mode: 'live' });
    expect(await products()).toContain('Live tea');
    expect(await products()).not.toContain('Test tea');
    expect(await developer()).toContain('/live-hooks');
    expect(await developer()).not.toContain('/sandbox-hooks');
    const list = (await t.call('GET', '/api/v1/products', key)).json.data as { name: string; mode: string }[];
    expect(list.map((p) => [p.name, p.mode]).sort()).toEqual([
      ['Live tea', 'live'],
      ['Test tea', 'sandbox'],
    ]);
  });

  it('creates, edits, deactivates and reactivates a product, within the API limits', async () => {
    const shop = await merchant(t);
    const session = await signInHttp(t, shop.email);
    const create = await session.form('/dashboard/products', '/dashboard/products', {
      name: 'Tea',
      description: 'Green tea 100 g',
      amount: '7.5',
      mode: 'sandbox',
      success_url: '',
    });
    // Refused forms let go of their token: the corrected form, with the same token, makes the product.
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
    const added = await session.post(
      '/dashboard/developer/webhooks',
      await session.form('/dashboard/developer', '/dashboard/developer/webhooks', { url: 'http://127.0.0.1:9/hooks' }),
    );
    expect(added.status).toBe(200);
    const page = await added.text();
    const secret = /<code class="secret"[^>]*>(whsec_[^<]+)<\/code>/.exec(page)?.[1];
    expect(secret).toBeDefined();
    const id = /\/dashboard\/developer\/webhooks\/(we_[0-9A-Za-z]+)\/roll/.exec(page)?.[1] ?? '';
    const again = await (await session.get(`/dashboard/developer/webhooks/${id}`)).text();
    expect(again).not.toContain(secret);
    const stamp = /name="secret_of" value="([^"]+)"/.exec(again)?.[1] ?? '';
    const rolled = await session.post(`/dashboard/developer/webhooks/${id}/roll`, { grace: '0', secret_of: stamp });
    expect(rolled.status).toBe(200);
    const newSecret = /<code class="secret"[^>]*>(whsec_[^<]+)<\/code>/.exec(await rolled.text())?.[1];
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
    const endpointPath = `/dashboard/developer/webhooks/${id}`;
    // No attempt yet, so no Resend button on the page: the form's fields as the button would send them.
    const resend = { event_id: event.id, once: 'e'.repeat(24) };
    expect((await session.post(`${endpointPath}/resend`, resend)).status).toBe(303);
    const queued = async () =>
      (
        await t.server.services.database.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('event_id', '=', event.id)
          .where('origin', '=', 'resend')
          .execute()
      ).length;
    expect(await queued()).toBe(1);
    // The same form again is sent where the first went, and queues nothing more.
    expect((await session.post(`${endpointPath}/resend`, resend)).status).toBe(303);
    expect(await queued()).toBe(1);
    const nope = { event_id: 'evt_nope', once: 'f'.repeat(24) };
    expect((await session.post(`${endpointPath}/resend`, nope)).status).toBe(404);
  });
});
