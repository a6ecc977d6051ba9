import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { ENGINES } from './support/engines.ts';
import type { TestAccount } from './support/server.ts';
import { createSettledTransaction } from './support/transactions.ts';
import { useTestServer } from './support/use-test-server.ts';

describe.each(ENGINES)('GET /api/v1/transactions (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 3, 12, 0, 0, 0));
  const { t } = useTestServer(engine, { clock });
  const list = (account: TestAccount, query = '') =>
    t.call('GET', `/api/v1/transactions${query}`, { key: account.secretKey });
  const ids = (res: { json: any }) => res.json.data.map((tx: { id: string }) => tx.id);

  it('lists newest first, pages with limit and starting_after without skipping or repeating', async () => {
    const shop = await t.newAccount();
    const made: { id: string; ms: number }[] = [];
    for (let i = 1; i <= 7; i++) {
      made.push({ id: (await createSettledTransaction(t, shop, { amount: i * 100 })).id, ms: clock.now() });
      if (i % 3 !== 0) clock.advance(1); // some share a millisecond: the id orders those
    }
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await list(shop, `?limit=3${after ? `&starting_after=${after}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.json.object).toBe('list');
      expect(page.json.data.length).toBeLessThanOrEqual(3);
      seen.push(...ids(page));
      if (!page.json.has_more) break;
      after = page.json.data.at(-1).id;
    }
    const expected = [...made].sort((a, b) => b.ms - a.ms || (a.id < b.id ? 1 : -1)).map((tx) => tx.id);
    expect(seen).toEqual(expected);
  });

  it('answers full records, the same as retrieval', async () => {
    const shop = await t.newAccount();
    const { id } = await createSettledTransaction(t, shop);
    const one = await t.call('GET', `/api/v1/transactions/${id}`, { key: shop.secretKey });
    const res = await list(shop);
    expect(res.json).toEqual({ object: 'list', data: [one.json], has_more: false });
  });

  it('shows only the own account, and an empty list for an account with none', async () => {
    const a = await t.newAccount();
    const b = await t.newAccount();
    const { id } = await createSettledTransaction(t, a);
    expect(ids(await list(a))).toEqual([id]);
    expect((await list(b)).json).toEqual({ object: 'list', data: [], has_more: false });
  });

  it("another account's id as cursor is the 404 of a missing one", async () => {
    const a = await t.newAccount();
    const b = await t.newAccount();
    const { id: foreign } = await createSettledTransaction(t, b);
    const x = await list(a, `?starting_after=${foreign}`);
    const y = await list(a, `?starting_after=${'0'.repeat(24)}`);
    expect(x.status).toBe(404);
    expect(x.json).toEqual({ error: 'starting_after names no transaction of this account.' });
    expect(x.text).toBe(y.text);
  });

  it('limit is 1 to 100, default 10', async () => {
    const shop = await t.newAccount();
    for (let i = 0; i < 11; i++) await createSettledTransaction(t, shop);
    expect((await list(shop)).json.data).toHaveLength(10);
    expect((await list(shop, '?limit=1')).json.data).toHaveLength(1);
    expect((await list(shop, '?limit=100')).json.data).toHaveLength(11);
    for (const bad of ['0', '101', '1.5', 'ten', '-1']) {
      const res = await list(shop, `?limit=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.json.error).toMatch(/^limit must be an integer/);
    }
  });

  describe('filters', () => {
    let shop: TestAccount;
    let settled: string;
    let declined: string;
    let withProduct: string;
    let early: { id: string; ms: number };
    let late: { id: string; ms: number };
    beforeAll(async () => {
      shop = await t.newAccount();
      clock.advance(10_000);
      early = { id: (await createSettledTransaction(t, shop, { externalid: 'order-1' })).id, ms: clock.now() };
      clock.advance(1_000);
      settled = (await createSettledTransaction(t, shop, { externalid: 'order-2' })).id;
      clock.advance(1);
      declined = (await createSettledTransaction(t, shop, { status: 30, externalid: 'order-2' })).id;
      clock.advance(1);
      withProduct = (await createSettledTransaction(t, shop, { product: 'prod_mug' })).id;
      clock.advance(1_000);
      late = { id: (await createSettledTransaction(t, shop)).id, ms: clock.now() };
    });

    it('status', async () => {
      expect(ids(await list(shop, '?status=30'))).toEqual([declined]);
      expect(ids(await list(shop, '?status=20'))).not.toContain(declined);
      expect(ids(await list(shop, '?status=50'))).toEqual([]);
      const bad = await list(shop, '?status=25');
      expect(bad.status).toBe(400);
      expect(bad.json.error).toBe('status must be one of: 10, 11, 20, 30, 31, 32, 40, 41, 50.');
    });

    it('payment_intent', async () => {
      const res = await t.call('GET', `/api/v1/transactions/${settled}`, { key: shop.secretKey });
      expect(ids(await list(shop, `?payment_intent=${res.json.payment_intent}`))).toEqual([settled]);
      expect(ids(await list(shop, `?payment_intent=${'0'.repeat(24)}`))).toEqual([]);
    });

    it('product and externalid', async () => {
      expect(ids(await list(shop, '?product=prod_mug'))).toEqual([withProduct]);
      expect(ids(await list(shop, '?externalid=order-2'))).toEqual([declined, settled]);
      expect(ids(await list(shop, '?externalid=order-2&status=20'))).toEqual([settled]);
      expect((await list(shop, `?externalid=${'x'.repeat(200)}`)).status).toBe(200);
      const long = await list(shop, `?externalid=${'x'.repeat(201)}`);
      expect(long.status).toBe(400);
      expect(long.json.error).toBe('externalid must be at most 200 characters long.');
    });

    it('created[gte] and created[lte] include their edge, to the millisecond', async () => {
      const at = (ms: number) => (ms / 1000).toString();
      expect(ids(await list(shop, `?created[gte]=${at(late.ms)}`))).toEqual([late.id]);
      expect(ids(await list(shop, `?created[gte]=${at(late.ms + 1)}`))).toEqual([]);
      expect(ids(await list(shop, `?created[lte]=${at(early.ms)}`))).toEqual([early.id]);
      expect(ids(await list(shop, `?created[lte]=${at(early.ms - 1)}`))).toEqual([]);
    });

    it('created[gt] and created[lt] exclude their edge', async () => {
      const at = (ms: number) => (ms / 1000).toString();
      expect(ids(await list(shop, `?created[gt]=${at(late.ms)}`))).toEqual([]);
      expect(ids(await list(shop, `?created[gt]=${at(late.ms - 1)}`))).toEqual([late.id]);
      expect(ids(await list(shop, `?created[lt]=${at(early.ms)}`))).toEqual([]);
      expect(ids(await list(shop, `?created[lt]=${at(early.ms + 1)}`))).toEqual([early.id]);
    });

    it('a `created` copied from a record finds that record', async () => {
      const record = (await t.call('GET', `/api/v1/transactions/${early.id}`, { key: shop.secretKey })).json;
      const res = await list(shop, `?created[gte]=${record.created}&created[lte]=${record.created}`);
      expect(ids(res)).toEqual([early.id]);
    });

    it('created bounds are 0 to 10^10 seconds', async () => {
      expect((await list(shop, '?created[gte]=0')).json.data).toHaveLength(5);
      expect((await list(shop, '?created[lte]=10000000000')).json.data).toHaveLength(5);
      for (const [q, message] of [
        ['created[gte]=-0.001', 'created[gte] must be a number from 0 to 10000000000.'],
        ['created[lte]=10000000000.001', 'created[lte] must be a number from 0 to 10000000000.'],
        ['created[gt]=yesterday', 'created[gt] must be a number.'],
      ] as const) {
        const res = await list(shop, `?${q}`);
        expect(res.status, q).toBe(400);
        expect(res.json).toEqual({ error: message });
      }
    });

    it('filters narrow the pages too', async () => {
      const first = await list(shop, '?status=20&limit=2');
      expect(first.json.has_more).toBe(true);
      const second = await list(shop, `?status=20&limit=2&starting_after=${first.json.data[1].id}`);
      expect([...ids(first), ...ids(second)]).toEqual([late.id, withProduct, settled, early.id]);
      expect(second.json.has_more).toBe(false);
    });

    it('an unknown filter is refused, naming it', async () => {
      const res = await list(shop, '?statuss=20');
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: 'Received unknown parameter: statuss.' });
    });
  });

  it('refuses without a valid key, in the {error} shape', async () => {
    const res = await t.call('GET', '/api/v1/transactions', { key: 'sk_nope' });
    expect(res.status).toBe(401);
    expect(Object.keys(res.json)).toEqual(['error']);
  });
});
