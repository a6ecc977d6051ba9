import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DAY, ManualClock, SECOND } from '../src/clock.ts';
import { expireDueIntents } from '../src/domain/payments/expire.ts';
import { RECONCILE_AFTER_MS, reconcilePendingAttempts } from '../src/domain/payments/reconcile.ts';
import { paymentDeps } from '../src/services.ts';
import { type AcquirerDouble, type DoubleRule, startAcquirerDouble } from './support/acquirer-double.ts';
import { ENGINES } from './support/engines.ts';
import { startTestServer, type TestAccount, type TestServer } from './support/server.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

const CARD = '4111111111111111';

/** Attempts whose outcome was lost, settled later by asking the acquirer (decision 0041). */
describe.each(ENGINES)('reconciling live attempts of unknown outcome (%s)', (engine) => {
  let t: TestServer;
  let shop: TestAccount;
  let double: AcquirerDouble;
  const clock = new ManualClock(Date.UTC(2026, 10, 2, 12));

  const reconcile = () => reconcilePendingAttempts(paymentDeps(t.server.services));
  const intentStatus = async (id: string) =>
    (await t.call('GET', `/api/v1/payment-intents/${id}`, { key: shop.secretKey })).json.status;
  const txOf = (id: string) => t.server.services.repos.transactions.find(shop.id, id);
  const lookupsOf = async (id: string) =>
    (await double.requests()).filter((r) => r.method === 'GET' && r.path === `/v1/authorizations/${id}`);

  /** A live payment whose answer is lost as `rule` says: the confirm answers `processing`. */
  async function lostPayment(rule: DoubleRule) {
    await double.rule(CARD, rule);
    const intent = await createIntent(t, shop.secretKey, { mode: 'live' });
    const res = await confirm(t, shop.clientKey, intent.client_secret, card(CARD), { mode: 'live' });
    expect(res.json.status).toBe('processing');
    await double.rule(CARD, { answer: 'approve' });
    return { intent, attemptId: res.json.transaction_id as string };
  }

  beforeAll(async () => {
    double = await startAcquirerDouble();
    t = await startTestServer(engine, { clock, liveProcessor: double.connector({ timeoutMs: 600 }) });
    shop = await t.newAccount();
  });
  beforeEach(() => double.reset());
  afterAll(async () => {
    await t.close();
    await double.stop();
  });

  it('a timeout is asked about only once a minute old, then settled as the acquirer says', async () => {
    const { intent, attemptId } = await lostPayment({ answer: 'approve', fault: 'hang' });
    clock.advance(RECONCILE_AFTER_MS - SECOND);
    await reconcile();
    expect(await lookupsOf(attemptId)).toEqual([]);
    expect(await intentStatus(intent.id)).toBe('processing');

    clock.advance(2 * SECOND);
    const report = await reconcile();
    expect(report.settled.map((tx) => tx.id)).toContain(attemptId);
    expect(await lookupsOf(attemptId)).toHaveLength(1);
    expect(await intentStatus(intent.id)).toBe('succeeded');
    const tx = await txOf(attemptId);
    expect(tx).toMatchObject({ status: 20, cardBank: 'Double Trust Bank', cardCountry: 'GB' });
    expect(tx?.authorizationCode).toMatch(/^A/);
    const events = await t.server.services.repos.eventFeed.forObject(shop.id, intent.id);
    expect(events.map((e) => e.type)).toEqual([
      'payment_intent.created',
      'payment_intent.processing',
      'payment_intent.succeeded',
    ]);
    // Settled once: another pass asks nothing and changes nothing.
    await reconcile();
    expect(await lookupsOf(attemptId)).toHaveLength(1);
  });

  it('a dropped connection after processing: the retry reused the attempt id; the lookup says approved', async () => {
    const { intent, attemptId } = await lostPayment({ answer: 'approve', fault: 'drop_after' });
    const posts = (await double.requests()).filter((r) => r.method === 'POST' && r.body?.attempt_id === attemptId);
    expect(posts.map((r) => r.headers['idempotency-key'])).toEqual([attemptId, attemptId]);
    clock.advance(RECONCILE_AFTER_MS + SECOND);
    await reconcile();
    expect(await intentStatus(intent.id)).toBe('succeeded');
  });

  it('processed and declined while we were not listening: failed, and the shopper may retry', async () => {
    const { intent, attemptId } = await lostPayment({
      answer: 'decline',
      decline_code: 'insufficient_funds',
      fault: 'hang',
    });
    clock.advance(RECONCILE_AFTER_MS + SECOND);
    await reconcile();
    expect(await intentStatus(intent.id)).toBe('failed');
    expect(await txOf(attemptId)).toMatchObject({ status: 30, declineCode: 'insufficient_funds' });
    const retry = await confirm(t, shop.clientKey, intent.client_secret, card(CARD), { mode: 'live' });
    expect(retry.json.status).toBe('succeeded');
  });

  it('never reached the acquirer: failed as a processing error, and the retry is a new attempt', async () => {
    const { intent, attemptId } = await lostPayment({ answer: 'approve', fault: 'hang_unprocessed' });
    clock.advance(RECONCILE_AFTER_MS + SECOND);
    await reconcile();
    expect(await intentStatus(intent.id)).toBe('failed');
    expect(await txOf(attemptId)).toMatchObject({ status: 31, declineCode: 'processing_error' });
    const retry = await confirm(t, shop.clientKey, intent.client_secret, card(CARD), { mode: 'live' });
    expect(retry.json).toMatchObject({ status: 'succeeded' });
    expect(retry.json.transaction_id).not.toBe(attemptId);
  });

  it('while the acquirer cannot say, the attempt stays processing and is asked again', async () => {
    const { intent, attemptId } = await lostPayment({ answer: 'pending', fault: 'hang' });
    clock.advance(RECONCILE_AFTER_MS + SECOND);
    expect((await reconcile()).stillUnknown.map((tx) => tx.id)).toContain(attemptId);
    await double.failLookups(true);
    await double.decide(attemptId, 'approve');
    expect((await reconcile()).stillUnknown.map((tx) => tx.id)).toContain(attemptId);
    expect(await intentStatus(intent.id)).toBe('processing');
    await double.failLookups(false);
    await reconcile();
    expect(await intentStatus(intent.id)).toBe('succeeded');
    expect(await lookupsOf(attemptId)).toHaveLength(3);
  });

  it('an unknown attempt holds off expiry until reconciled; then the intent expires normally', async () => {
    const { intent, attemptId } = await lostPayment({ answer: 'decline', fault: 'hang' });
    await double.failLookups(true);
    clock.advance(7 * DAY);
    const deps = paymentDeps(t.server.services);
    expect((await expireDueIntents(deps)).map((i) => i.id)).not.toContain(intent.id);
    expect(await intentStatus(intent.id)).toBe('processing');
    await double.failLookups(false);
    await reconcile();
    expect(await txOf(attemptId)).toMatchObject({ status: 30 });
    expect((await expireDueIntents(deps)).map((i) => i.id)).toContain(intent.id);
    expect(await intentStatus(intent.id)).toBe('expired');
  });

  it('a sandbox challenge left open is not the reconciler’s: it is never asked about', async () => {
    const intent = await createIntent(t, shop.secretKey, { mode: 'sandbox' });
    const res = await confirm(t, shop.clientKey, intent.client_secret, card('4000000000003220'));
    expect(res.json.status).toBe('requires_action');
    clock.advance(RECONCILE_AFTER_MS + SECOND);
    const report = await reconcile();
    expect([...report.settled, ...report.stillUnknown].map((tx) => tx.id)).not.toContain(res.json.transaction_id);
    expect(await double.requests()).toEqual([]);
    expect((await txOf(res.json.transaction_id))?.status).toBe(10);
  });

  it('50 older attempts the acquirer cannot decide do not starve newer ones (paging)', async () => {
    const lose = async (number: string, count: number) => {
      const intents = await Promise.all(
        Array.from({ length: count }, () => createIntent(t, shop.secretKey, { mode: 'live' })),
      );
      const answers = await Promise.all(
        intents.map((i) => confirm(t, shop.clientKey, i.client_secret, card(number), { mode: 'live' })),
      );
      expect(answers.map((a) => a.json.status)).toEqual(Array(count).fill('processing'));
      return answers.map((a) => a.json.transaction_id as string);
    };
    await double.rule(CARD, { answer: 'pending', fault: 'hang' });
    const undecided = await lose(CARD, 50);
    clock.advance(SECOND);
    await double.rule('5555555555554444', { answer: 'approve', fault: 'hang' });
    const decided = await lose('5555555555554444', 3);
    clock.advance(RECONCILE_AFTER_MS + SECOND);
    const report = await reconcile();
    expect(report.settled.map((tx) => tx.id).sort()).toEqual([...decided].sort());
    expect(report.stillUnknown.map((tx) => tx.id)).toEqual(expect.arrayContaining(undecided));
    for (const id of decided) expect((await txOf(id))?.status).toBe(20);
  });

  it('the reconciler worker settles what is due; once stopping, it asks nothing more', async () => {
    const { startReconciler } = await import('../src/workers/reconciler.ts');
    const { createLogger } = await import('../src/logger.ts');
    const worker = startReconciler(t.server.services, createLogger('silent'));
    const first = await lostPayment({ answer: 'approve', fault: 'hang' });
    clock.advance(RECONCILE_AFTER_MS + SECOND);
    expect((await worker.runOnce()).settled.map((tx) => tx.id)).toContain(first.attemptId);
    expect(await intentStatus(first.intent.id)).toBe('succeeded');

    const second = await lostPayment({ answer: 'approve', fault: 'hang' });
    clock.advance(RECONCILE_AFTER_MS + SECOND);
    await worker.stop();
    expect(await worker.runOnce()).toEqual({ settled: [], stillUnknown: [] });
    expect(await lookupsOf(second.attemptId)).toEqual([]);
    expect(await intentStatus(second.intent.id)).toBe('processing');
    await reconcile();
    expect(await intentStatus(second.intent.id)).toBe('succeeded');
  });
});
