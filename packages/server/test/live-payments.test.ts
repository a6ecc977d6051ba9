import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpAcquirer } from '../src/processors/http-acquirer.ts';
import { type AcquirerDouble, startAcquirerDouble } from './support/acquirer-double.ts';
import { ENGINES } from './support/engines.ts';
import { freePort, startTestServer, type TestAccount, type TestServer } from './support/server.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

/** Live payments through the widget API, with the live connector pointed at the acquirer double. */
describe.each(ENGINES)('live payments through the acquirer double (%s)', (engine) => {
  let t: TestServer;
  let shop: TestAccount;
  let double: AcquirerDouble;

  const liveIntent = (body: Record<string, unknown> = {}) => createIntent(t, shop.secretKey, { mode: 'live', ...body });
  const payLive = (secret: string, number: string, over = {}) =>
    confirm(t, shop.clientKey, secret, card(number, over), { mode: 'live' });
  const intentOf = async (id: string) =>
    (await t.call('GET', `/api/v1/payment-intents/${id}`, { key: shop.secretKey })).json;
  const sentFor = async (attemptId: string) =>
    (await double.requests()).filter(
      (r) => r.path.startsWith('/v1/authorizations') && r.body?.attempt_id === attemptId,
    );

  beforeAll(async () => {
    double = await startAcquirerDouble();
    // Through the configuration, as `obolus serve` gets it from OBOLUS_LIVE_CONNECTOR_*.
    t = await startTestServer(engine, { config: { liveConnector: double.config({ timeoutMs: 1000 }) } });
    shop = await t.newAccount();
  });
  beforeEach(() => double.reset());
  afterAll(async () => {
    await t.close();
    await double.stop();
  });

  it('a live intent is paid through the acquirer: the card went to it, and only to it', async () => {
    const intent = await liveIntent({ amount: 12345, descriptor: 'OBOLUS TEST SHOP', externalid: 'order-9' });
    const res = await payLive(intent.client_secret, '4111111111111111', { cvc: '918', name: 'Grace Hopper' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ success: true, status: 'succeeded', payment_intent: intent.id });
    expect((await intentOf(intent.id)).status).toBe('succeeded');

    const [sent, ...more] = await sentFor(res.json.transaction_id);
    expect(more).toEqual([]);
    expect(sent?.headers.authorization).toBe(`Bearer ${double.key}`);
    expect(sent?.body).toMatchObject({
      amount: 12345,
      currency: 'USD',
      descriptor: 'OBOLUS TEST SHOP',
      card: { number: '4111111111111111', cvc: '918', name: 'Grace Hopper' },
    });

    const record = (await t.call('GET', `/api/v1/transactions/${res.json.transaction_id}`, { key: shop.secretKey }))
      .json;
    expect(record).toMatchObject({
      status: 20,
      statustext: 'Settled',
      amountpaid: 123.45,
      mode: 'live',
      card: '411111******1111',
      cardholder: 'Grace Hopper',
      cardbank: 'Double Trust Bank',
      cardcountry: 'GB',
      paymenttypetext: 'Visa',
      externalid: 'order-9',
      authorization_code: expect.stringMatching(/^A/),
    });
    // The CVC and the full number exist only at the acquirer: not in our rows, events or logs.
    const { db } = t.server.services.database;
    const stored = JSON.stringify([
      await db.selectFrom('transactions').selectAll().execute(),
      await db.selectFrom('events').selectAll().execute(),
    ]);
    expect(stored).not.toContain('4111111111111111');
    expect(stored).not.toMatch(/"cvc"/);
    expect(t.logs()).not.toContain('4111111111111111');
    expect(t.logs()).not.toContain(double.key);
  });

  it('a decline fails the attempt with its code; a retry is a new attempt id and pays', async () => {
    await double.rule('4000000000009995', { answer: 'decline', decline_code: 'insufficient_funds' });
    const intent = await liveIntent();
    const declined = await payLive(intent.client_secret, '4000000000009995');
    expect(declined.json).toMatchObject({ status: 'failed', success: false, error: { code: 'insufficient_funds' } });
    expect((await intentOf(intent.id)).status).toBe('failed');
    const paid = await payLive(intent.client_secret, '4111111111111111');
    expect(paid.json.status).toBe('succeeded');
    expect(paid.json.transaction_id).not.toBe(declined.json.transaction_id);
    expect(await sentFor(declined.json.transaction_id)).toHaveLength(1);
    expect(await sentFor(paid.json.transaction_id)).toHaveLength(1);
  });

  it('a 3-D Secure challenge is not available live: declined at once, the acquirer told, the intent payable', async () => {
    await double.rule('4000000000003220', { answer: 'challenge' });
    const intent = await liveIntent();
    const res = await payLive(intent.client_secret, '4000000000003220');
    expect(res.json).toMatchObject({ status: 'failed', error: { code: 'authentication_failed' } });
    expect(res.json.error.message).toContain('3-D Secure');
    expect(res.json.challenge_url).toBeUndefined();
    const told = (await double.requests()).find((r) => r.path.endsWith(`/${res.json.transaction_id}/challenge`));
    expect(told?.body).toEqual({ passed: false });
    expect((await payLive(intent.client_secret, '4111111111111111')).json.status).toBe('succeeded');
  });

  it('the acquirer failing before processing (its 500) is a clean failure; the intent stays payable', async () => {
    await double.rule('4111111111111111', { answer: 'approve', fault: 'error_500', times: 1 });
    const intent = await liveIntent();
    const failed = await payLive(intent.client_secret, '4111111111111111');
    expect(failed.json).toMatchObject({ status: 'failed', error: { code: 'processing_error' } });
    expect((await payLive(intent.client_secret, '4111111111111111')).json.status).toBe('succeeded');
  });

  it('a timeout answers processing; the intent takes no other attempt meanwhile', async () => {
    await double.rule('4111111111111111', { answer: 'approve', fault: 'hang' });
    const intent = await liveIntent();
    const res = await payLive(intent.client_secret, '4111111111111111');
    expect(res.json).toMatchObject({ status: 'processing', success: false });
    expect((await intentOf(intent.id)).status).toBe('processing');
    const again = await payLive(intent.client_secret, '4111111111111111');
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('payment_in_progress');
    const tx = await t.server.services.repos.transactions.find(shop.id, res.json.transaction_id);
    expect(tx?.status).toBe(10);
    expect(t.logs()).toMatch(/"attempt_id":"[0-9a-f]{24}","call":"authorize","failure":"lost","reason":"timeout"/);
  });

  it('sandbox intents never reach the acquirer', async () => {
    const intent = await createIntent(t, shop.secretKey, { mode: 'sandbox' });
    const res = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
    expect(res.json.status).toBe('succeeded');
    const tx = await t.server.services.repos.transactions.find(shop.id, res.json.transaction_id);
    expect(tx?.cardBank).toBe('Obolus Test Bank');
    expect(await double.requests()).toEqual([]);
  });

  it.each([
    ['4000000000000002', 'the sandbox decline card'],
    ['4000000000000119', 'the sandbox processing-error card'],
    ['4242424242424242', 'the sandbox success card'],
  ])('live intents never reach the sandbox: %s (%s) is whatever the acquirer says', async (number) => {
    const intent = await liveIntent();
    const res = await payLive(intent.client_secret, number);
    expect(res.json.status).toBe('succeeded');
    const tx = await t.server.services.repos.transactions.find(shop.id, res.json.transaction_id);
    expect(tx?.cardBank).toBe('Double Trust Bank');
    expect((await sentFor(res.json.transaction_id))[0]?.body.card.number).toBe(number);
  });

  it('a widget in sandbox mode cannot pay a live intent, and nothing reaches the acquirer', async () => {
    const intent = await liveIntent();
    const res = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'), { mode: 'sandbox' });
    expect(res.json.error.code).toBe('mode_mismatch');
    expect(await double.requests()).toEqual([]);
  });
});

describe.each(ENGINES)('a live connector that cannot connect (%s)', (engine) => {
  let t: TestServer;
  let shop: TestAccount;
  const warnings: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const closedPort = await freePort();
    const unreachable = new HttpAcquirer(
      { url: new URL(`http://127.0.0.1:${closedPort}`), key: 'k', timeoutMs: 5000 },
      { warn: (fields) => warnings.push(fields) },
    );
    t = await startTestServer(engine, { liveProcessor: unreachable });
    shop = await t.newAccount();
  });
  afterAll(() => t.close());

  it('a refused connection is a clean failure at once, and the intent stays payable', async () => {
    const intent = await createIntent(t, shop.secretKey, { mode: 'live' });
    const started = Date.now();
    const res = await confirm(t, shop.clientKey, intent.client_secret, card('4111111111111111'), { mode: 'live' });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(res.json).toMatchObject({ status: 'failed', error: { code: 'processing_error' } });
    expect(res.json.error.message).toContain('Nothing was charged');
    const after = await t.call('GET', `/api/v1/payment-intents/${intent.id}`, { key: shop.secretKey });
    expect(after.json.status).toBe('failed');
    // Payable: the next confirm is a new attempt, not a refusal.
    const retry = await confirm(t, shop.clientKey, intent.client_secret, card('4111111111111111'), { mode: 'live' });
    expect(retry.status).toBe(200);
    expect(retry.json.transaction_id).not.toBe(res.json.transaction_id);
    expect(warnings).toContainEqual({
      attempt_id: res.json.transaction_id,
      call: 'authorize',
      failure: 'not_sent',
      reason: 'ECONNREFUSED',
    });
  });
});
