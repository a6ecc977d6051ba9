import { beforeAll, describe, expect, it } from 'vitest';
import type { PaymentIntent } from '../../node/src/index.ts';
import { DAY, ManualClock } from '../src/clock.ts';
import type { EventDraft } from '../src/domain/events.ts';
import { appendEvents } from '../src/store/repos/events.ts';
import { WebhookDispatcher } from '../src/workers/webhooks/dispatcher.ts';
import { ENGINES } from './support/engines.ts';
import { type TestAccount, WEBHOOKS_BY_HAND } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';
import { type Receiver, startReceiver } from './support/webhook-receiver.ts';

describe.each(ENGINES)('events API (%s)', (engine) => {
  let other: TestAccount;
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  const { t, shop } = useTestServer(engine, {
    clock,
    config: WEBHOOKS_BY_HAND,
    withAccount: true,
  });
  beforeAll(async () => {
    other = await t.newAccount();
  });

  const createIntent = async (account: TestAccount, amount = 100) =>
    (
      await t.call<PaymentIntent>('POST', '/api/v1/payment-intents', {
        key: account.secretKey,
        body: { amount, currency: 'USD', mode: 'sandbox' },
      })
    ).json;
  const append = (account: TestAccount, type: EventDraft['type'], objectId: string) =>
    appendEvents(
      t.server.services.database.db,
      [
        {
          type,
          accountId: account.id,
          mode: 'sandbox',
          objectType: type.startsWith('payment_intent') ? 'payment_intent' : 'transaction',
          objectId,
          object: { id: objectId },
        },
      ],
      clock.now(),
    );
  const list = (account: TestAccount, qs = '') => t.call('GET', `/api/v1/events${qs}`, { key: account.secretKey });

  it('retrieves an event exactly as created, and another account gets the 404 of a missing one', async () => {
    const intent = await createIntent(shop, 4242);
    const [event] = (await list(shop, `?object_id=${intent.id}`)).json.data;
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_/),
      object: 'event',
      type: 'payment_intent.created',
      created: clock.now() / 1000,
      mode: 'sandbox',
      sequence: 1,
      data: { object: intent },
    });
    expect((await t.call('GET', `/api/v1/events/${event.id}`, { key: shop.secretKey })).json).toEqual(event);
    const foreign = await t.call('GET', `/api/v1/events/${event.id}`, { key: other.secretKey });
    const missing = await t.call('GET', '/api/v1/events/evt_missing', { key: other.secretKey });
    expect([foreign.status, missing.status]).toEqual([404, 404]);
    expect(foreign.json.error.message.replace(event.id, 'X')).toBe(
      missing.json.error.message.replace('evt_missing', 'X'),
    );
    expect((await list(other, `?object_id=${intent.id}`)).json.data).toEqual([]);
  });

  it('lists newest first, pages with starting_after, and filters by type, family and object', async () => {
    const account = await t.newAccount();
    const intent = await createIntent(account);
    clock.advance(1);
    await append(account, 'payment_intent.processing', intent.id);
    clock.advance(1);
    await append(account, 'transaction.created', 'tx_1');
    clock.advance(1);
    await append(account, 'payment_intent.succeeded', intent.id);
    const types = (res: { json: { data: { type: string }[] } }) => res.json.data.map((e) => e.type);
    const all = await list(account);
    expect(types(all)).toEqual([
      'payment_intent.succeeded',
      'transaction.created',
      'payment_intent.processing',
      'payment_intent.created',
    ]);
    const first = await list(account, '?limit=3');
    expect(first.json.has_more).toBe(true);
    const rest = await list(account, `?limit=3&starting_after=${first.json.data[2].id}`);
    expect(types(rest)).toEqual(['payment_intent.created']);
    expect(rest.json.has_more).toBe(false);
    expect(types(await list(account, '?type=transaction.created'))).toEqual(['transaction.created']);
    expect(types(await list(account, '?type=payment_intent.*'))).toHaveLength(3);
    const seqs = (await list(account, `?object_id=${intent.id}`)).json.data.map(
      (e: { sequence: number }) => e.sequence,
    );
    expect(seqs).toEqual([3, 2, 1]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['type=payment_intent.paid', 'type'],
    ['type=*', 'type'],
    ['colour=red', 'colour'],
    [`object_id=${'x'.repeat(65)}`, 'object_id'],
  ])('refuses ?%s naming %s', async (qs, param) => {
    const res = await list(shop, `?${qs}`);
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe(param);
  });

  it('logs a poll of the events list at debug, and a refused one at info', async () => {
    const lines = () =>
      t
        .logs()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
    const before = lines().length;
    await t.call('GET', '/api/v1/events?limit=100', { key: shop.secretKey });
    await t.call('GET', '/api/v1/events?limit=0', { key: shop.secretKey });
    await t.call('GET', '/api/v1/payment-intents?limit=1', { key: shop.secretKey });
    const requests = lines()
      .slice(before)
      .filter((line) => line.msg === 'request completed');
    expect(requests.map((line) => [line.level, line.url, line.status])).toEqual([
      [20, '/api/v1/events?limit=100', 200],
      [30, '/api/v1/events?limit=0', 400],
      [30, '/api/v1/payment-intents?limit=1', 200],
    ]);
  });

  it('limit=1 and limit=100 are fine; a cursor from another account is a 404', async () => {
    expect((await list(shop, '?limit=1')).json.data).toHaveLength(1);
    expect((await list(shop, '?limit=100')).status).toBe(200);
    await createIntent(other);
    const foreign = (await list(other)).json.data[0].id;
    const res = await list(shop, `?starting_after=${foreign}`);
    expect(res.status).toBe(404);
    expect(res.json.error.param).toBe('starting_after');
  });

  it('keeps events 30 days, then prunes them with their deliveries, except the newest of each object', async () => {
    const receiver: Receiver = await startReceiver();
    try {
      const account = await t.newAccount();
      const endpoint = await t.call('POST', '/api/v1/webhook-endpoints', {
        key: account.secretKey,
        body: { url: receiver.url, enabled_events: ['*'], mode: 'sandbox' },
      });
      const start = clock.now();
      const x = await createIntent(account);
      await append(account, 'payment_intent.succeeded', x.id);
      const y = await createIntent(account);
      const dispatcher = new WebhookDispatcher(t.server.services);
      await dispatcher.runOnce();
      expect(receiver.received).toHaveLength(3);
      const oldest = (await list(account, `?object_id=${x.id}`)).json.data.find((e: any) => e.sequence === 1);
      clock.set(start + 30 * DAY);
      await dispatcher.pruneOnce();
      expect((await list(account)).json.data).toHaveLength(3); // 30 days exactly: still kept
      clock.set(start + 30 * DAY + 1);
      await dispatcher.pruneOnce();
      const left = (await list(account)).json.data;
      expect(left.map((e: { sequence: number; data: any }) => [e.data.object.id, e.sequence]).sort()).toEqual(
        [
          [x.id, 2],
          [y.id, 1],
        ].sort(),
      );
      expect((await t.call('GET', `/api/v1/events/${oldest.id}`, { key: account.secretKey })).status).toBe(404);
      const attempts = await t.call('GET', `/api/v1/webhook-endpoints/${endpoint.json.id}/attempts`, {
        key: account.secretKey,
      });
      expect(attempts.json.data.map((a: { event: string }) => a.event)).not.toContain(oldest.id);
      expect(attempts.json.data).toHaveLength(2);
      // The next event of x numbers on from the one kept.
      await append(account, 'payment_intent.expired', x.id);
      expect((await list(account, `?object_id=${x.id}`)).json.data[0].sequence).toBe(3);
    } finally {
      await receiver.close();
    }
  });
});
