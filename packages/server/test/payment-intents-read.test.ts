import { beforeAll, describe, expect, it } from 'vitest';
import type { PaymentIntent } from '../../node/src/index.ts';
import { ManualClock } from '../src/clock.ts';
import { ENGINES } from './support/engines.ts';
import type { TestAccount } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';

describe.each(ENGINES)('reading payment intents (%s)', (engine) => {
  let other: TestAccount;
  const clock = new ManualClock(Date.UTC(2026, 10, 1));
  const { t, shop } = useTestServer(engine, { clock, withAccount: true });
  beforeAll(async () => {
    other = await t.newAccount();
  });

  const create = async (account: TestAccount, amount: number) =>
    (
      await t.call<PaymentIntent>('POST', '/api/v1/payment-intents', {
        key: account.secretKey,
        body: { amount, currency: 'USD', mode: 'sandbox' },
      })
    ).json;

  it('retrieves an intent by id', async () => {
    const intent = await create(shop, 4200);
    const res = await t.call('GET', `/api/v1/payment-intents/${intent.id}`, { key: shop.secretKey });
    expect(res.status).toBe(200);
    expect(res.json).toEqual(intent);
  });

  it("another account's intent is the same 404 as a missing one", async () => {
    const foreign = await create(other, 100);
    const missingId = '0'.repeat(24);
    const a = await t.call('GET', `/api/v1/payment-intents/${foreign.id}`, { key: shop.secretKey });
    const b = await t.call('GET', `/api/v1/payment-intents/${missingId}`, { key: shop.secretKey });
    expect(a.status).toBe(404);
    expect(b.status).toBe(404);
    const strip = (json: any, id: string) => ({
      ...json.error,
      request_id: undefined,
      message: json.error.message.replace(id, 'ID'),
    });
    expect(strip(a.json, foreign.id)).toEqual(strip(b.json, missingId));
    expect(a.json.error).toMatchObject({ type: 'invalid_request', code: 'resource_missing', param: 'id' });
  });

  it('lists newest first with cursor pagination', async () => {
    const account = await t.newAccount();
    const made: { id: string; ms: number }[] = [];
    for (let i = 1; i <= 7; i++) {
      made.push({ id: (await create(account, i)).id, ms: clock.now() });
      if (i % 3 !== 0) clock.advance(1); // some share a millisecond: the id orders those
    }
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const qs = `?limit=3${after ? `&starting_after=${after}` : ''}`;
      const page = await t.call('GET', `/api/v1/payment-intents${qs}`, { key: account.secretKey });
      expect(page.status).toBe(200);
      expect(page.json.object).toBe('list');
      seen.push(...page.json.data.map((i: { id: string }) => i.id));
      if (!page.json.has_more) break;
      after = page.json.data.at(-1).id;
    }
    const expected = [...made].sort((a, b) => b.ms - a.ms || (a.id < b.id ? 1 : -1)).map((i) => i.id);
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(7);
    expect(seen.at(-1)).toBe(expected.at(-1));
  });

  it('lists only the own account', async () => {
    const a = await t.newAccount();
    await create(a, 1);
    const res = await t.call('GET', '/api/v1/payment-intents', { key: a.secretKey });
    expect(res.json.data).toHaveLength(1);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['colour=red', 'colour'],
  ])('refuses ?%s naming %s', async (qs, param) => {
    const res = await t.call('GET', `/api/v1/payment-intents?${qs}`, { key: shop.secretKey });
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe(param);
  });

  it('limit=1 and limit=100 are fine; starting_after of another account is a 404', async () => {
    expect((await t.call('GET', '/api/v1/payment-intents?limit=1', { key: shop.secretKey })).json.data).toHaveLength(1);
    expect((await t.call('GET', '/api/v1/payment-intents?limit=100', { key: shop.secretKey })).status).toBe(200);
    const foreign = await create(other, 5);
    const res = await t.call('GET', `/api/v1/payment-intents?starting_after=${foreign.id}`, {
      key: shop.secretKey,
    });
    expect(res.status).toBe(404);
    expect(res.json.error.param).toBe('starting_after');
  });
});
