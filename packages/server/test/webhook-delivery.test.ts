import { Webhook } from 'standardwebhooks';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentIntent } from '../../node/src/index.ts';
import { ManualClock, MINUTE, SECOND } from '../src/clock.ts';
import { EVENT_TYPES, type EventDraft } from '../src/domain/events.ts';
import { SEND_CAPS } from '../src/domain/webhooks/deliveries.ts';
import { fanOutEvents } from '../src/domain/webhooks/fanout.ts';
import { appendEvents } from '../src/store/repos/events.ts';
import { LEASE_MS, WebhookDispatcher } from '../src/workers/webhooks/dispatcher.ts';
import { ENGINES } from './support/engines.ts';
import { startTestServer, type TestAccount, WEBHOOKS_BY_HAND } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';
import { type Receiver, startReceiver, verifyAsSent } from './support/webhook-receiver.ts';

describe.each(ENGINES)('webhook delivery (%s)', (engine) => {
  let receiver: Receiver;
  let dispatcher: WebhookDispatcher;
  const clock = new ManualClock(Date.now());
  // Live intents (an endpoint receives only its mode's events) need a live connector.
  const { t } = useTestServer(engine, { clock, config: WEBHOOKS_BY_HAND, withLiveConnector: true });
  beforeAll(() => {
    dispatcher = new WebhookDispatcher(t.server.services);
  });
  afterEach(async () => {
    await dispatcher.runOnce(); // nothing left over for the next test's receiver
    await receiver?.close();
  });

  const endpoint = async (account: TestAccount, body: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/api/v1/webhook-endpoints', {
      key: account.secretKey,
      body: { url: receiver.url, enabled_events: ['*'], mode: 'sandbox', ...body },
    });
    expect(res.status).toBe(200);
    return res.json as { id: string; secret: string };
  };
  const createIntent = async (account: TestAccount, amount = 1000) =>
    (
      await t.call<PaymentIntent>('POST', '/api/v1/payment-intents', {
        key: account.secretKey,
        body: { amount, currency: 'USD', mode: 'sandbox' },
      })
    ).json;
  const draft = (account: TestAccount, type: EventDraft['type'], objectId: string): EventDraft => ({
    type,
    accountId: account.id,
    mode: 'sandbox',
    objectType: type.startsWith('payment_intent') ? 'payment_intent' : 'transaction',
    objectId,
    object: { id: objectId, object: type.split('.')[0] },
  });

  it('delivers every event type, signed so that the standardwebhooks library verifies it', async () => {
    receiver = await startReceiver();
    const shop = await t.newAccount();
    const { secret } = await endpoint(shop);
    const intent = await createIntent(shop);
    const others = EVENT_TYPES.filter((type) => type !== 'payment_intent.created');
    await appendEvents(
      t.server.services.database.db,
      others.map((type) => draft(shop, type, `obj_${type}`)),
      clock.now(),
    );
    const report = await dispatcher.runOnce();
    expect(report.attempts.every((a) => a.succeeded)).toBe(true);
    expect(receiver.received.map((w) => w.json.type).sort()).toEqual([...EVENT_TYPES].sort());
    for (const webhook of receiver.received) {
      const verified = new Webhook(secret).verify(webhook.body, webhook.headers) as any;
      expect(verified.id).toBe(webhook.headers['webhook-id']);
      expect(verified.id).toMatch(/^evt_/);
      expect(webhook.headers['content-type']).toBe('application/json');
      expect(verified).toMatchObject({ object: 'event', mode: 'sandbox', sequence: 1 });
    }
    const created = receiver.received.find((w) => w.json.type === 'payment_intent.created')!;
    expect(created.json.data.object).toEqual(intent);
    // The body is exactly what the events API answers.
    const fromApi = await t.call('GET', `/api/v1/events/${created.json.id}`, { key: shop.secretKey });
    expect(fromApi.text).toBe(created.body);
  });

  it('a tampered body, a wrong secret and a timestamp older than 5 minutes fail verification', async () => {
    receiver = await startReceiver();
    const shop = await t.newAccount();
    const { secret } = await endpoint(shop);
    await createIntent(shop);
    await dispatcher.runOnce();
    const [webhook] = receiver.received;
    expect(() => verifyAsSent(secret, webhook!)).not.toThrow();
    const tampered = { ...webhook!, body: webhook!.body.replace('"amount":1000', '"amount":1') };
    expect(tampered.body).not.toBe(webhook!.body);
    expect(() => verifyAsSent(secret, tampered)).toThrow(/signature/i);
    const other = (await endpoint(shop)).secret;
    expect(() => verifyAsSent(other, webhook!)).toThrow(/signature/i);
    const sentAt = Number(webhook!.headers['webhook-timestamp']) * 1000;
    expect(() => verifyAsSent(secret, webhook!, sentAt + 5 * MINUTE)).not.toThrow();
    expect(() => verifyAsSent(secret, webhook!, sentAt + 5 * MINUTE + SECOND)).toThrow(/too old/i);
  });

  it('a receiver that is down and then recovers gets every event, each at least once', async () => {
    receiver = await startReceiver();
    const shop = await t.newAccount();
    const { secret } = await endpoint(shop);
    await receiver.down();
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push((await createIntent(shop, i)).id);
    let report = await dispatcher.runOnce();
    expect(report.attempts).toHaveLength(5);
    expect(report.attempts.every((a) => !a.succeeded && a.error === 'connection refused')).toBe(true);
    // Back up, but answering 503 to the first retry: still failures, retried later.
    await receiver.up();
    receiver.reply = () => ({ status: 503, body: 'maintenance' });
    clock.advance(5 * SECOND);
    report = await dispatcher.runOnce();
    expect(report.attempts).toHaveLength(5);
    // A loopback receiver: its status is kept, never what it answered (issue 25 item 4).
    expect(report.attempts[0]).toMatchObject({ statusCode: 503, responseBody: null, succeeded: false });
    // Nothing is due before the next step of the schedule (5 min).
    clock.advance(5 * MINUTE - SECOND);
    expect((await dispatcher.runOnce()).attempts).toHaveLength(0);
    receiver.reply = () => ({ status: 200, body: 'ok' });
    clock.advance(SECOND);
    report = await dispatcher.runOnce();
    expect(report.attempts.every((a) => a.succeeded)).toBe(true);
    const delivered = receiver.received.filter((w) => w.headers['webhook-id'] && w.json);
    const intentsSeen = new Set(delivered.map((w) => w.json.data.object.id));
    expect([...intentsSeen].sort()).toEqual([...ids].sort());
    for (const webhook of delivered) expect(() => verifyAsSent(secret, webhook)).not.toThrow();
    // Delivered: no more attempts, however much later.
    clock.advance(3 * 24 * 60 * MINUTE);
    expect((await dispatcher.runOnce()).attempts).toHaveLength(0);
  });

  it('an endpoint receives only its mode, its event types, and events from its creation on', async () => {
    receiver = await startReceiver();
    const shop = await t.newAccount();
    const before = await createIntent(shop);
    await endpoint(shop, { enabled_events: ['payment_intent.succeeded'] });
    await t.call('POST', '/api/v1/payment-intents', { key: shop.secretKey, body: { amount: 5, currency: 'USD' } });
    await createIntent(shop);
    await appendEvents(
      t.server.services.database.db,
      [draft(shop, 'payment_intent.succeeded', before.id)],
      clock.now(),
    );
    await dispatcher.runOnce();
    expect(receiver.received.map((w) => w.json.type)).toEqual(['payment_intent.succeeded']);
    expect(receiver.received[0]!.json.sequence).toBe(2);
  });

  it('a dispatcher that dies mid-work delays its events until its lease ends, and loses none', async () => {
    receiver = await startReceiver();
    const shop = await t.newAccount();
    await endpoint(shop);
    const { repos } = t.server.services;
    const first = await createIntent(shop);
    // One dispatcher leases the new event for fan-out, and dies before committing.
    expect(await repos.webhookFanout.claimUnfannedAcrossAccounts(clock.now(), LEASE_MS, 100)).toHaveLength(1);
    expect((await dispatcher.runOnce()).deliveries).toBe(0);
    clock.advance(LEASE_MS - 1);
    expect((await dispatcher.runOnce()).deliveries).toBe(0);
    clock.advance(1);
    const report = await dispatcher.runOnce();
    expect(report.deliveries).toBe(1);
    expect(report.attempts).toHaveLength(1);
    // Another fans out, leases the due delivery, and dies while sending.
    const second = await createIntent(shop);
    await fanOutEvents(repos.webhookFanout, clock, LEASE_MS, 100);
    expect(await repos.webhookDeliveries.claimDueAcrossAccounts(clock.now(), LEASE_MS, 10, SEND_CAPS)).toHaveLength(1);
    expect((await dispatcher.runOnce()).attempts).toHaveLength(0);
    clock.advance(LEASE_MS);
    expect((await dispatcher.runOnce()).attempts).toHaveLength(1);
    expect(receiver.received.map((w) => w.json.data.object.id)).toEqual([first.id, second.id]);
  });

  it("never sends one account's events to another account's endpoint", async () => {
    receiver = await startReceiver();
    const [a, b] = [await t.newAccount(), await t.newAccount()];
    await endpoint(b);
    await createIntent(a);
    await dispatcher.runOnce();
    expect(receiver.received).toHaveLength(0);
  });
});

describe('webhooks in a running server (sqlite)', () => {
  it('the server dispatches on its own every OBOLUS_WEBHOOKS_POLL_MS', async () => {
    const receiver = await startReceiver();
    const t = await startTestServer('sqlite', { config: { webhooksAllowLoopback: true, webhooksPollMs: 50 } });
    try {
      const shop = await t.newAccount();
      await t.call('POST', '/api/v1/webhook-endpoints', {
        key: shop.secretKey,
        body: { url: receiver.url, enabled_events: ['*'], mode: 'sandbox' },
      });
      await t.call('POST', '/api/v1/payment-intents', {
        key: shop.secretKey,
        body: { amount: 300, currency: 'USD', mode: 'sandbox' },
      });
      const end = Date.now() + 10_000;
      while (receiver.received.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
      expect(receiver.received.map((w) => w.json.type)).toEqual(['payment_intent.created']);
    } finally {
      await t.close();
      await receiver.close();
    }
  });
});
