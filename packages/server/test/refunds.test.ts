import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { ENGINES } from './support/engines.ts';
import type { CallOptions } from './support/server.ts';
import { createSettledTransaction, type SettledOptions } from './support/transactions.ts';
import { useTestServer } from './support/use-test-server.ts';

describe.each(ENGINES)('POST /api/v1/transactions/{id}/refunds (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 4, 8, 0, 0, 250));
  const { t, shop } = useTestServer(engine, { clock, withAccount: true });
  const refund = (id: string, options: CallOptions = {}) =>
    t.call('POST', `/api/v1/transactions/${id}/refunds`, { key: shop.secretKey, ...options });
  const retrieve = async (id: string) =>
    (await t.call('GET', `/api/v1/transactions/${id}`, { key: shop.secretKey })).json;
  const paid = async (options: SettledOptions = {}) => (await createSettledTransaction(t, shop, options)).id;
  const updates = async (id: string) =>
    (await t.server.services.repos.eventFeed.forObject(shop.id, id)).filter((e) => e.type === 'transaction.updated');

  describe('a full refund by default', () => {
    it.each([
      ['no body at all', {}],
      ['an empty JSON body', { rawBody: '', headers: { 'content-type': 'application/json' } }],
      ['{}', { body: {} }],
    ] as [string, CallOptions][])('with %s', async (_case, options) => {
      const id = await paid({ amount: 2000 });
      clock.advance(5);
      const res = await refund(id, options);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ object: 'refund', amount: 2000, currency: 'USD', transaction: id });
      expect(res.json.id).toMatch(/^re_[0-9A-Za-z]{24}$/);
      expect(res.json.created).toBe(clock.now() / 1000);
      expect(res.json.transaction_record).toMatchObject({
        id,
        status: 40,
        statustext: 'Refunded',
        amount_refunded: 2000,
        // What was paid stays what was paid; the refund is its own line.
        amountpaid: 20,
        usdpaid: 20,
        refunds: [{ id: res.json.id, object: 'refund', amount: 2000, currency: 'USD', transaction: id }],
      });
      expect(await retrieve(id)).toEqual(res.json.transaction_record);
    });
  });

  it('partial refunds: 41 until the last cent, then 40; listed oldest first', async () => {
    const id = await paid({ amount: 2000 });
    const first = await refund(id, { body: { amount: 500 } });
    expect(first.status).toBe(200);
    expect(first.json.transaction_record).toMatchObject({
      status: 41,
      statustext: 'Partially refunded',
      amount_refunded: 500,
    });
    clock.advance(1);
    const rest = await refund(id);
    expect(rest.status).toBe(200);
    expect(rest.json.amount).toBe(1500);
    const record = await retrieve(id);
    expect(record).toMatchObject({ status: 40, amount_refunded: 2000 });
    expect(record.refunds.map((r: { id: string }) => r.id)).toEqual([first.json.id, rest.json.id]);
  });

  describe('amount at the edges (paid 1000, 400 refunded, 600 left)', () => {
    let id: string;
    beforeAll(async () => {
      id = await paid({ amount: 1000 });
      expect((await refund(id, { body: { amount: 400 } })).status).toBe(200);
    });

    it.each([
      [0, 'amount must be an integer from 1 to 99999999.'],
      [-1, 'amount must be an integer from 1 to 99999999.'],
      [100_000_000, 'amount must be an integer from 1 to 99999999.'],
      [1.5, 'amount must be an integer.'],
      ['100', 'amount must be an integer.'],
      [null, 'amount must be an integer.'],
      [601, 'amount must be at most 600: the cents of this payment not yet refunded.'],
    ])('%j is refused with 400, naming amount', async (amount, message) => {
      const res = await refund(id, { body: { amount } });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: message });
      expect(await retrieve(id)).toMatchObject({ status: 41, amount_refunded: 400 });
    });

    it('1 cent, then exactly what is left, are accepted', async () => {
      expect((await refund(id, { body: { amount: 1 } })).json.transaction_record.amount_refunded).toBe(401);
      const last = await refund(id, { body: { amount: 599 } });
      expect(last.status).toBe(200);
      expect(last.json.transaction_record).toMatchObject({ status: 40, amount_refunded: 1000 });
    });

    it('after that, nothing more: 409 already refunded', async () => {
      for (const body of [undefined, { amount: 1 }]) {
        const res = await refund(id, { body });
        expect(res.status).toBe(409);
        expect(res.json).toEqual({ error: 'This transaction has already been refunded in full.' });
      }
    });
  });

  it('the largest amount there is can be refunded in one go', async () => {
    const id = await paid({ amount: 99_999_999 });
    const res = await refund(id, { body: { amount: 99_999_999 } });
    expect(res.status).toBe(200);
    expect(res.json.transaction_record).toMatchObject({ status: 40, amountpaid: 999999.99 });
  });

  it.each([
    [10, 'Only settled transactions can be refunded; this one is Pending.'],
    [30, 'Only settled transactions can be refunded; this one is Declined.'],
    [31, 'Only settled transactions can be refunded; this one is Failed.'],
  ] as const)('a transaction in status %i cannot be refunded (409)', async (status, message) => {
    const id = await paid({ status });
    const res = await refund(id);
    expect(res.status).toBe(409);
    expect(res.json).toEqual({ error: message });
    expect(await updates(id)).toEqual([]);
  });

  it('a charged-back transaction cannot be refunded as well (409)', async () => {
    const id = await paid({ amount: 1000 });
    await refund(id, { body: { amount: 100 } });
    await t.call('POST', `/api/v1/sandbox/transactions/${id}/chargeback`, { key: shop.secretKey });
    const res = await refund(id, { body: { amount: 100 } });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatch(/chargeback/);
    expect(await retrieve(id)).toMatchObject({ status: 50, amount_refunded: 100 });
  });

  it('a live transaction is refused: no live connector can give the money back', async () => {
    const id = await paid({ mode: 'live' });
    const res = await refund(id);
    expect(res.status).toBe(409);
    expect(res.json.error).toMatch(/live connector/);
    expect(await retrieve(id)).toMatchObject({ status: 20, amount_refunded: 0, refunds: [] });
  });

  it("another account's transaction is the 404 of a missing one, and nothing is refunded", async () => {
    const other = await t.newAccount();
    const { id: foreign } = await createSettledTransaction(t, other);
    const a = await refund(foreign);
    const b = await refund('0'.repeat(24));
    expect(a.status).toBe(404);
    expect(a.text).toBe(b.text);
    expect(a.json).toEqual({ error: 'No such transaction.' });
    const seen = await t.call('GET', `/api/v1/transactions/${foreign}`, { key: other.secretKey });
    expect(seen.json).toMatchObject({ status: 20, amount_refunded: 0 });
  });

  it('bad requests get the {error} shape', async () => {
    const id = await paid();
    const unknown = await refund(id, { body: { amount: 1, note: 'x' } });
    expect(unknown.status).toBe(400);
    expect(unknown.json).toEqual({ error: 'Received unknown parameter: note.' });
    const notJson = await refund(id, { rawBody: 'amount=1', headers: { 'content-type': 'text/plain' } });
    expect(notJson.status).toBe(415);
    expect(Object.keys(notJson.json)).toEqual(['error']);
    const broken = await refund(id, { rawBody: '{"amount":', headers: { 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
    expect(broken.json).toEqual({ error: 'The request body is not valid JSON.' });
    const array = await refund(id, { body: [1] });
    expect(array.status).toBe(400);
    expect(await retrieve(id)).toMatchObject({ status: 20, amount_refunded: 0 });
    const anonymous = await t.call('POST', `/api/v1/transactions/${id}/refunds`, { body: {} });
    expect(anonymous.status).toBe(401);
  });

  it('every refund writes transaction.updated with the record after it, in order', async () => {
    const id = await paid({ amount: 900 });
    const a = await refund(id, { body: { amount: 300 } });
    const b = await refund(id, { body: { amount: 600 } });
    const events = await updates(id);
    expect(events.map((e) => e.object)).toEqual([a.json.transaction_record, b.json.transaction_record]);
    expect(events[1]!.objectSeq).toBeGreaterThan(events[0]!.objectSeq);
    expect(events.every((e) => e.mode === 'sandbox' && e.objectType === 'transaction')).toBe(true);
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer byte for byte and refunds once', async () => {
      const id = await paid({ amount: 1000 });
      const send = () => refund(id, { body: { amount: 250 }, headers: { 'idempotency-key': `refund-${id}` } });
      const first = await send();
      const again = await send();
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await retrieve(id)).toMatchObject({ amount_refunded: 250 });
      expect(await updates(id)).toHaveLength(1);
    });

    it('the same key with another amount is a 422 in the {error} shape', async () => {
      const id = await paid({ amount: 1000 });
      const key = { 'idempotency-key': `k-${id}` };
      await refund(id, { body: { amount: 100 }, headers: key });
      const res = await refund(id, { body: { amount: 200 }, headers: key });
      expect(res.status).toBe(422);
      expect(Object.keys(res.json)).toEqual(['error']);
      expect(await retrieve(id)).toMatchObject({ amount_refunded: 100 });
    });

    it('a refusal is replayed too', async () => {
      const id = await paid({ amount: 1000 });
      const key = { 'idempotency-key': `too-much-${id}` };
      const first = await refund(id, { body: { amount: 1001 }, headers: key });
      expect(first.status).toBe(400);
      const again = await refund(id, { body: { amount: 1001 }, headers: key });
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    });
  });

  describe('concurrent refunds never refund more than was paid', () => {
    it('20 partial refunds of 100 at once on 1000: exactly 10 succeed', async () => {
      const id = await paid({ amount: 1000 });
      const results = await Promise.all(Array.from({ length: 20 }, () => refund(id, { body: { amount: 100 } })));
      const ok = results.filter((r) => r.status === 200);
      expect(ok).toHaveLength(10);
      for (const refused of results.filter((r) => r.status !== 200)) {
        expect([400, 409]).toContain(refused.status);
        expect(Object.keys(refused.json)).toEqual(['error']);
      }
      const record = await retrieve(id);
      expect(record).toMatchObject({ status: 40, amount_refunded: 1000 });
      expect(record.refunds).toHaveLength(10);
      expect(record.refunds.reduce((sum: number, r: { amount: number }) => sum + r.amount, 0)).toBe(1000);
      expect(await updates(id)).toHaveLength(10);
    });

    it('20 partial refunds of 150 at once on 2000: 13 succeed, 50 cents stay', async () => {
      const id = await paid({ amount: 2000 });
      const results = await Promise.all(Array.from({ length: 20 }, () => refund(id, { body: { amount: 150 } })));
      expect(results.filter((r) => r.status === 200)).toHaveLength(13);
      expect(results.filter((r) => r.status === 400)).toHaveLength(7);
      expect(await retrieve(id)).toMatchObject({ status: 41, amount_refunded: 1950 });
    });

    it('20 full refunds at once: one succeeds', async () => {
      const id = await paid({ amount: 1234 });
      const results = await Promise.all(Array.from({ length: 20 }, () => refund(id)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409)).toHaveLength(19);
      expect(await retrieve(id)).toMatchObject({ status: 40, amount_refunded: 1234 });
    });

    it('"everything left" beside partial refunds takes only what is left', async () => {
      const id = await paid({ amount: 1000 });
      const results = await Promise.all([
        ...Array.from({ length: 5 }, () => refund(id, { body: { amount: 100 } })),
        refund(id),
        ...Array.from({ length: 5 }, () => refund(id, { body: { amount: 100 } })),
      ]);
      const record = await retrieve(id);
      expect(record).toMatchObject({ status: 40, amount_refunded: 1000 });
      const refunded = results.filter((r) => r.status === 200).reduce((sum, r) => sum + r.json.amount, 0);
      expect(refunded).toBe(1000);
    });
  });
});
