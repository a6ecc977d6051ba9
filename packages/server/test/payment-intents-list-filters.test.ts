import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

describe.each(ENGINES)('finding intents and transactions (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 1));
  const made: Record<string, string> = {};
  const at: Record<string, number> = {};
  const { t, shop } = useTestServer(engine, { clock, withAccount: true, withLiveConnector: true });
  beforeAll(async () => {
    const make = async (name: string, body: Record<string, unknown>, pay?: string) => {
      const intent = await createIntent(t, shop.secretKey, body);
      if (pay) await confirm(t, shop.clientKey, intent.client_secret, card(pay));
      made[name] = intent.id;
      at[name] = clock.now();
      clock.advance(1000);
    };
    await make('order1', { reference: 'order-1', externalid: 'ext-a' }, '4242424242424242');
    await make('order2', { reference: 'order-2' }, '4000000000000002');
    await make('order1again', { reference: 'order-1', externalid: 'ext-b' });
    await make('live', { mode: 'live', reference: 'order-3' });
    await make('canceled', { reference: 'order-4' });
    await t.call('POST', `/api/v1/payment-intents/${made.canceled}/cancel`, { key: shop.secretKey });
  });

  const ids = async (query: string, key = shop.secretKey) => {
    const res = await t.call('GET', `/api/v1/payment-intents?${query}`, { key });
    expect(res.status, res.text).toBe(200);
    return res.json.data.map((i: { id: string }) => i.id);
  };

  it('finds an order by its reference in one call, newest first', async () => {
    expect(await ids('reference=order-1')).toEqual([made.order1again, made.order1]);
    expect(await ids('reference=order-9')).toEqual([]);
  });

  it('filters by status, mode and externalid', async () => {
    expect(await ids('status=succeeded')).toEqual([made.order1]);
    expect(await ids('status=failed')).toEqual([made.order2]);
    expect(await ids('status=canceled')).toEqual([made.canceled]);
    expect(await ids('mode=live')).toEqual([made.live]);
    expect(await ids('mode=sandbox&status=requires_payment')).toEqual([made.order1again]);
    expect(await ids('externalid=ext-b')).toEqual([made.order1again]);
    expect(await ids('reference=order-1&status=succeeded')).toEqual([made.order1]);
  });

  it('filters by creation time: created[gte] inclusive, created[lt] exclusive, at their edges', async () => {
    const s = (name: string) => (at[name] as number) / 1000;
    expect(await ids(`created[gte]=${s('order1again')}&created[lt]=${s('canceled')}`)).toEqual([
      made.live,
      made.order1again,
    ]);
    expect(await ids(`created[gte]=${s('canceled') + 0.001}`)).toEqual([]);
    expect(await ids(`created[lt]=${s('order1')}`)).toEqual([]);
    expect(await ids(`created[gt]=${s('live')}&created[lte]=${s('canceled')}`)).toEqual([made.canceled]);
  });

  it('pages a filtered list with starting_after', async () => {
    const first = await t.call('GET', '/api/v1/payment-intents?mode=sandbox&limit=2', { key: shop.secretKey });
    expect(first.json.has_more).toBe(true);
    const after = first.json.data.at(-1).id;
    const rest = await ids(`mode=sandbox&limit=2&starting_after=${after}`);
    expect([...first.json.data.map((i: { id: string }) => i.id), ...rest]).toEqual([
      made.canceled,
      made.order1again,
      made.order2,
      made.order1,
    ]);
  });

  it.each([
    ['status=paid', 'status'],
    ['mode=test', 'mode'],
    ['created[gte]=soon', 'created[gte]'],
    ['created[lt]=-1', 'created[lt]'],
    [`reference=${'r'.repeat(201)}`, 'reference'],
    ['colour=red', 'colour'],
  ])('refuses %s naming %s', async (query, param) => {
    const res = await t.call('GET', `/api/v1/payment-intents?${query}`, { key: shop.secretKey });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request', param });
  });

  it("never shows another account's intents, whatever the filter", async () => {
    const other = await t.newAccount();
    expect(await ids('reference=order-1', other.secretKey)).toEqual([]);
  });

  it('lists transactions by mode', async () => {
    const res = await t.call('GET', '/api/v1/transactions?mode=sandbox', { key: shop.secretKey });
    expect(res.status).toBe(200);
    expect(res.json.data).toHaveLength(2);
    expect((await t.call('GET', '/api/v1/transactions?mode=live', { key: shop.secretKey })).json.data).toEqual([]);
    const bad = await t.call('GET', '/api/v1/transactions?mode=test', { key: shop.secretKey });
    expect(bad.status).toBe(400);
  });
});
