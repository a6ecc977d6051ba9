import { describe, expect, it } from 'vitest';
import { DAY, ManualClock } from '../src/clock.ts';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

describe.each(ENGINES)('updating a payment intent before payment (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 1));
  const { t, shop } = useTestServer(engine, { clock, withAccount: true });

  const update = (id: string, body: unknown, key = shop.secretKey) =>
    t.call('POST', `/api/v1/payment-intents/${id}`, { key, body });
  const retrieve = async (id: string) =>
    (await t.call('GET', `/api/v1/payment-intents/${id}`, { key: shop.secretKey })).json;
  const pay = (secret: string, number: string) => confirm(t, shop.clientKey, secret, card(number));

  it('changes the amount and the texts; null clears a text; metadata merges and "" removes a key', async () => {
    const intent = await createIntent(t, shop.secretKey, {
      reference: 'order-1',
      description: 'Two books',
      metadata: { a: '1', b: '2' },
    });
    const res = await update(intent.id, {
      amount: 3500,
      description: 'Three books',
      descriptor: 'OBOLUS BOOKS',
      reference: 'order-1b',
      externalid: 'ext-9',
      metadata: { b: '', c: '3' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: intent.id,
      status: 'requires_payment',
      amount: 3500,
      currency: 'USD',
      mode: 'sandbox',
      description: 'Three books',
      descriptor: 'OBOLUS BOOKS',
      reference: 'order-1b',
      externalid: 'ext-9',
      metadata: { a: '1', c: '3' },
      client_secret: intent.client_secret,
    });
    expect(await retrieve(intent.id)).toEqual(res.json);
    const cleared = await update(intent.id, { description: null, reference: null });
    expect(cleared.json).toMatchObject({ description: null, reference: null, externalid: 'ext-9', amount: 3500 });
  });

  it('the shopper pays the updated amount', async () => {
    const intent = await createIntent(t, shop.secretKey, { amount: 1000 });
    await update(intent.id, { amount: 1234 });
    const shown = await t.call('POST', '/embed/v1/intent', {
      body: { pk: shop.clientKey, client_secret: intent.client_secret },
    });
    expect(shown.json.amount).toBe(1234);
    const paid = await pay(intent.client_secret, '4242424242424242');
    expect(paid.json.status).toBe('succeeded');
    const tx = await t.call('GET', `/api/v1/transactions/${paid.json.transaction_id}`, { key: shop.secretKey });
    expect(tx.json).toMatchObject({ amount: 1234, amountpaid: 12.34 });
  });

  it('updates a failed intent; the retry pays the new amount', async () => {
    const intent = await createIntent(t, shop.secretKey, { amount: 1000 });
    await pay(intent.client_secret, '4000000000000002');
    expect((await retrieve(intent.id)).status).toBe('failed');
    expect((await update(intent.id, { amount: 900 })).json).toMatchObject({ status: 'failed', amount: 900 });
    const paid = await pay(intent.client_secret, '4242424242424242');
    const tx = await t.call('GET', `/api/v1/transactions/${paid.json.transaction_id}`, { key: shop.secretKey });
    expect(tx.json.amount).toBe(900);
  });

  it.each([
    [{ amount: 0 }, 'amount'],
    [{ amount: 100_000_000 }, 'amount'],
    [{ amount: 12.5 }, 'amount'],
    [{ amount: '100' }, 'amount'],
    [{ description: 'abcd' }, 'description'],
    [{ description: 'x'.repeat(101) }, 'description'],
    [{ descriptor: 'abcd' }, 'descriptor'],
    [{ reference: 'r'.repeat(201) }, 'reference'],
    [{ externalid: 'e'.repeat(201) }, 'externalid'],
    [{ metadata: { a: 1 } }, 'metadata[a]'],
    [{ metadata: { big: 'x'.repeat(4090) } }, 'metadata'],
    [{ mode: 'live' }, 'mode'],
    [{ mode: 'sandbox' }, 'mode'],
    [{ currency: 'USD' }, 'currency'],
    [{ theme: 'dark', amount: 5 }, 'theme'],
  ])('refuses %j naming %s, changing nothing', async (body, param) => {
    const intent = await createIntent(t, shop.secretKey, { amount: 777 });
    const before = await retrieve(intent.id);
    const res = await update(intent.id, body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request' });
    expect(res.json.error.param).toBe(param);
    expect(await retrieve(intent.id)).toEqual(before);
  });

  it('takes every limit at its edge: amounts 1 and 99,999,999, texts of 5, 100 and 200 characters, metadata of 4096 bytes', async () => {
    const intent = await createIntent(t, shop.secretKey);
    const oneKey = (bytes: number) => ({ k: 'x'.repeat(bytes - '{"k":""}'.length) });
    for (const body of [
      { amount: 1 },
      { amount: 99_999_999 },
      { description: 'abcde', descriptor: 'abcde' },
      { description: 'd'.repeat(100), descriptor: 'd'.repeat(100) },
      { reference: 'r'.repeat(200), externalid: 'e'.repeat(200) },
      { metadata: oneKey(4096) },
    ]) {
      const res = await update(intent.id, body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(200);
    }
    const over = await update(intent.id, { metadata: { k: '', l: 'x'.repeat(4097 - '{"l":""}'.length) } });
    expect(over.json.error).toMatchObject({ param: 'metadata' });
  });

  it.each([
    ['succeeded', '4242424242424242'],
    ['processing', '4000000000003220'],
  ])('after a payment started (%s): 400 intent_unexpected_state, nothing changed', async (status, number) => {
    const intent = await createIntent(t, shop.secretKey);
    await pay(intent.client_secret, number);
    const before = await retrieve(intent.id);
    expect(before.status).toBe(status);
    const res = await update(intent.id, { amount: 5, reference: 'late' });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'intent_unexpected_state' });
    expect(await retrieve(intent.id)).toEqual(before);
  });

  it('refuses to update a canceled or an expired intent', async () => {
    const canceled = await createIntent(t, shop.secretKey);
    await t.call('POST', `/api/v1/payment-intents/${canceled.id}/cancel`, { key: shop.secretKey });
    expect((await update(canceled.id, { amount: 5 })).json.error.code).toBe('intent_unexpected_state');
    const old = await createIntent(t, shop.secretKey);
    clock.advance(7 * DAY);
    const res = await update(old.id, { amount: 5 });
    expect(res.json.error.code).toBe('intent_unexpected_state');
    expect(res.json.error.message).toContain('expired');
  });

  it('an update of the amount and a payment fired at once: the payment charges what the intent says', async () => {
    for (let round = 0; round < 5; round++) {
      const intent = await createIntent(t, shop.secretKey, { amount: 1000 });
      const [updated, paid] = await Promise.all([
        update(intent.id, { amount: 2000 }),
        pay(intent.client_secret, '4242424242424242'),
      ]);
      const final = await retrieve(intent.id);
      if (paid.status === 200) {
        const tx = await t.call('GET', `/api/v1/transactions/${paid.json.transaction_id}`, { key: shop.secretKey });
        expect(tx.json.amount).toBe(final.amount);
        if (updated.status !== 200) expect(updated.json.error.code).toBe('intent_unexpected_state');
      } else {
        expect(updated.status).toBe(200);
        expect(paid.json.error.code).toBe('payment_intent_unexpected_state');
        expect(final).toMatchObject({ amount: 2000, status: 'requires_payment', last_transaction: null });
      }
    }
  });

  it('an update of the description and a payment fired at once: the payment goes through, its events show the intent it paid', async () => {
    for (let round = 0; round < 5; round++) {
      const intent = await createIntent(t, shop.secretKey, { description: 'before' });
      const [updated, paid] = await Promise.all([
        update(intent.id, { description: `after ${round}` }),
        pay(intent.client_secret, '4242424242424242'),
      ]);
      // Begun on the update when it came first (decision 0255); the update refused when the payment did.
      expect(paid.status).toBe(200);
      expect(paid.json.status).toBe('succeeded');
      if (updated.status !== 200) expect(updated.json.error.code).toBe('intent_unexpected_state');
      const final = await retrieve(intent.id);
      expect(final.description).toBe(updated.status === 200 ? `after ${round}` : 'before');
      const events = await t.call('GET', `/api/v1/events?object_id=${intent.id}`, { key: shop.secretKey });
      const processing = events.json.data.find((e: { type: string }) => e.type === 'payment_intent.processing');
      if (processing.data.object.description !== final.description)
        console.log(
          JSON.stringify({
            round,
            updated: updated.json,
            paid: paid.json,
            final,
            events: events.json.data.map((e: any) => [
              e.type,
              e.created,
              e.data.object.description,
              e.data.object.updated,
            ]),
          }),
        );
      expect(processing.data.object.description).toBe(final.description);
    }
  });

  it("another account's intent is the same 404 as a missing one", async () => {
    const other = await t.newAccount();
    const foreign = await createIntent(t, other.secretKey);
    const a = await update(foreign.id, { amount: 5 });
    const b = await update('0'.repeat(24), { amount: 5 });
    expect([a.status, b.status]).toEqual([404, 404]);
    expect(a.json.error.message.replace(foreign.id, 'ID')).toBe(b.json.error.message.replace('0'.repeat(24), 'ID'));
    const still = await t.call('GET', `/api/v1/payment-intents/${foreign.id}`, { key: other.secretKey });
    expect(still.json.amount).toBe(2000);
  });
});
