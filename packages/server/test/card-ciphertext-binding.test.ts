import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, MINUTE } from '../src/clock.ts';
import { createLogger } from '../src/logger.ts';
import { maintainOnce } from '../src/workers/maintenance.ts';
import { ENGINES } from './support/engines.ts';
import { useSecondProcess } from './support/second-process.ts';
import type { TestAccount } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent, encryptCard } from './support/widget-client.ts';

/**
 * Issue 10, item 1: a card ciphertext lifted from a body log, a trace or a proxy pays one
 * payment, once, within minutes: never another intent, never another account, never twice.
 */
describe.each(ENGINES)('a card ciphertext is bound to one payment attempt (%s)', (engine) => {
  const { t, shop: shopA } = useTestServer(engine, { withAccount: 'Shop A' });
  const second = useSecondProcess(t);
  let shopB: TestAccount;
  beforeAll(async () => {
    shopB = await t.newAccount('Shop B');
  });

  const transactionsOf = (shop: TestAccount, intentId: string) =>
    t.server.services.repos.transactions.forIntent(shop.id, intentId);

  it('a blob that paid shop A cannot pay 999,999.99 on an intent of shop B', async () => {
    const paidIntent = await createIntent(t, shopA.secretKey);
    const blob = await encryptCard(t, paidIntent.id, card('4242424242424242'));
    expect((await confirm(t, shopA.clientKey, paidIntent.client_secret, null, { jwe: blob })).json.status).toBe(
      'succeeded',
    );

    const target = await createIntent(t, shopB.secretKey, { amount: 99_999_999 });
    const res = await confirm(t, shopB.clientKey, target.client_secret, null, { jwe: blob });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({
      code: 'card_encryption_invalid',
      param: 'card',
      message: expect.stringContaining('another payment'),
    });
    expect(await transactionsOf(shopB, target.id)).toEqual([]);
    const after = await t.call('GET', `/api/v1/payment-intents/${target.id}`, { key: shopB.secretKey });
    expect(after.json.status).toBe('requires_payment');
  });

  it('a blob cannot be re-aimed by rewriting its header: the header is authenticated', async () => {
    const source = await createIntent(t, shopA.secretKey);
    const target = await createIntent(t, shopB.secretKey);
    const blob = await encryptCard(t, source.id, card('4242424242424242'));
    const [header, ...rest] = blob.split('.');
    const claims = JSON.parse(Buffer.from(header as string, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, payment_intent: target.id })).toString('base64url');
    const res = await confirm(t, shopB.clientKey, target.client_secret, null, { jwe: [forged, ...rest].join('.') });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('card_encryption_invalid');
    expect(await transactionsOf(shopB, target.id)).toEqual([]);
  });

  it('a blob used once on an intent is refused on the same intent, by another process too', async () => {
    const intent = await createIntent(t, shopA.secretKey);
    const blob = await encryptCard(t, intent.id, card('4000000000000002'));
    const first = await confirm(t, shopA.clientKey, intent.client_secret, null, { jwe: blob });
    expect(first.json).toMatchObject({ status: 'failed', error: { code: 'card_declined' } });

    for (const base of [t.url, second.url]) {
      const res = await fetch(`${base}/embed/v1/confirm`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pk: shopA.clientKey, client_secret: intent.client_secret, mode: 'sandbox', card: blob }),
      });
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(res.status).toBe(400);
      expect(body.error.code).toBe('card_encryption_invalid');
      expect(body.error.message).toContain('already been used');
    }
    expect(await transactionsOf(shopA, intent.id)).toHaveLength(1);
    // A fresh ciphertext from the widget still pays: the shopper is not locked out.
    const again = await confirm(t, shopA.clientKey, intent.client_secret, card('4242424242424242'));
    expect(again.json.status).toBe('succeeded');
  });

  // On a server whose clock stands still: on the real one, a loaded machine's second between
  // encrypting and checking turned "61 seconds ahead" into 60 and the edge into a coin toss.
  describe('the age of a ciphertext, to the second', () => {
    const clock = new ManualClock();
    const { t: clocked, shop } = useTestServer(engine, { clock, withAccount: 'Shop C' });

    it.each([
      ['5 minutes and 1 second old', -5 * MINUTE - 1000, false],
      ['4 minutes 59 seconds old', -5 * MINUTE + 1000, true],
      ['dated 61 seconds ahead', MINUTE + 1000, false],
      ['dated 59 seconds ahead', MINUTE - 1000, true],
    ])('a ciphertext %s: accepted %s', async (_name, offset, accepted) => {
      const intent = await createIntent(clocked, shop.secretKey);
      const blob = await encryptCard(clocked, intent.id, card('4242424242424242'), { at: clock.now() + offset });
      const res = await confirm(clocked, shop.clientKey, intent.client_secret, null, { jwe: blob });
      if (accepted) {
        expect(res.json.status).toBe('succeeded');
      } else {
        expect(res.status).toBe(400);
        expect(res.json.error).toMatchObject({
          code: 'card_encryption_invalid',
          message: expect.stringContaining('old'),
        });
        expect(await clocked.server.services.repos.transactions.forIntent(shop.id, intent.id)).toEqual([]);
      }
    });
  });

  it('maintenance drops uses whose ciphertexts are past their age, and keeps the others', async () => {
    const uses = t.server.services.repos.cardCiphertextUses;
    const now = Date.now();
    const use = { accountId: shopA.id, paymentIntentId: 'pi_x', usedAt: now };
    expect(await uses.claim({ ...use, jti: 'expired-jti-000000001', expiresAt: now - 2 * MINUTE })).toBe(true);
    expect(await uses.claim({ ...use, jti: 'current-jti-000000001', expiresAt: now + MINUTE })).toBe(true);
    await maintainOnce(t.server.services, createLogger('silent'));
    expect(await uses.claim({ ...use, jti: 'expired-jti-000000001', expiresAt: now })).toBe(true);
    expect(await uses.claim({ ...use, jti: 'current-jti-000000001', expiresAt: now })).toBe(false);
  });
});
