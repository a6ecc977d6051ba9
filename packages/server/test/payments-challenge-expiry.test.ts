import { describe, expect, it } from 'vitest';
import { DAY, ManualClock, MINUTE } from '../src/clock.ts';
import { CHALLENGE_TIMEOUT_MS, failAbandonedChallenges } from '../src/domain/payments/abandoned-challenges.ts';
import { expireDueIntents } from '../src/domain/payments/expire.ts';
import {
  MAX_FAILED_ATTEMPTS_PER_INTENT,
  MAX_FAILURES_PER_IP_PER_MINUTE,
} from '../src/domain/payments/failure-limiter.ts';
import { TX_STATUS } from '../src/domain/transactions.ts';
import { paymentDeps } from '../src/services.ts';
import { accountWithOrigins } from './support/browser.ts';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

describe.each(ENGINES)('3-D Secure, expiry and card-testing limits (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 2, 12));
  const { t, shop } = useTestServer(engine, { clock, withAccount: true });
  const intentStatus = async (id: string) =>
    (await t.call('GET', `/api/v1/payment-intents/${id}`, { key: shop.secretKey })).json.status;
  const challengePath = (url: string) => new URL(url).pathname;

  async function challenged(number: string) {
    const intent = await createIntent(t, shop.secretKey);
    const res = await confirm(t, shop.clientKey, intent.client_secret, card(number));
    expect(res.json.status).toBe('requires_action');
    return { intent, path: challengePath(res.json.challenge_url), transactionId: res.json.transaction_id };
  }

  it('the sandbox ACS page shows the code, the amount and the card, under a strict CSP', async () => {
    const { path } = await challenged('4000000000003220');
    const page = await t.call('GET', path);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('1234');
    expect(page.text).toContain('$20.00');
    expect(page.text).toContain('3220');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'nonce-[^']+'/);
    // Any page may frame this account's widget (no allowed origins), so this page too.
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors *');
  });

  it('an account with allowed origins: only they (and the widget) may frame its challenge page', async () => {
    const strict = await accountWithOrigins(t, 'Strict Shop', ['https://shop.example']);
    const intent = await createIntent(t, strict.secretKey);
    const res = await confirm(t, strict.clientKey, intent.client_secret, card('4000000000003220'));
    const page = await t.call('GET', challengePath(res.json.challenge_url));
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'self' https://shop.example");
  });

  it('a challenge page asked for by another site (not our widget) is refused', async () => {
    const { path } = await challenged('4000000000003220');
    for (const site of ['cross-site', 'same-site', 'none']) {
      const page = await t.call('GET', path, { headers: { 'sec-fetch-site': site } });
      expect(page.status).toBe(403);
      expect(page.text).toContain('This page opens inside the payment form');
      expect(page.text).not.toContain('1234');
    }
    expect((await t.call('GET', path, { headers: { 'sec-fetch-site': 'same-origin' } })).status).toBe(200);
  });

  it('challenge tokens never reach the logs (issue 10 item 14)', async () => {
    const { path } = await challenged('4000000000003220');
    const token = path.split('/').at(-1) as string;
    await t.call('GET', path);
    await t.call('POST', path, { body: { code: '0000' } });
    await t.call('GET', `${path}x`);
    t.server.app.log.info({ req: { method: 'GET', url: path } }, 'probe');
    const logs = t.logs();
    expect(logs).toContain('probe');
    expect(logs).toContain('/embed/v1/challenge/chl_[redacted]');
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(token.slice(4, 20));
  });

  it('challenge passed with 1234: paid', async () => {
    const { intent, path, transactionId } = await challenged('4000000000003220');
    expect(await intentStatus(intent.id)).toBe('processing');
    const res = await t.call('POST', path, { body: { code: '1234' } });
    expect(res.json).toMatchObject({ status: 'succeeded', success: true, transaction_id: transactionId });
    expect(await intentStatus(intent.id)).toBe('succeeded');
    const tx = await t.server.services.repos.transactions.find(shop.id, transactionId);
    expect(tx?.threeDS).toBe('challenge_passed');
    // Answering again gives the same outcome and changes nothing.
    expect((await t.call('POST', path, { body: { code: '0000' } })).json.status).toBe('succeeded');
  });

  it('challenge failed with a wrong code: declined, and the shopper may retry', async () => {
    const { intent, path } = await challenged('4000000000003220');
    const res = await t.call('POST', path, { body: { code: '9999' } });
    expect(res.json).toMatchObject({ status: 'failed', error: { code: 'authentication_failed' } });
    expect(await intentStatus(intent.id)).toBe('failed');
    const retry = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
    expect(retry.json.status).toBe('succeeded');
  });

  it('challenge cancelled: declined', async () => {
    const { path } = await challenged('4000000000003220');
    expect((await t.call('POST', path, { body: { cancel: true } })).json.error.code).toBe('authentication_failed');
  });

  it('4000008400001629: challenge passed, then declined by the issuer', async () => {
    const { path } = await challenged('4000008400001629');
    expect((await t.call('POST', path, { body: { code: '1234' } })).json).toMatchObject({
      status: 'failed',
      error: { code: 'card_declined' },
    });
  });

  it('a confirm while a challenge is open is refused', async () => {
    const { intent } = await challenged('4000000000003220');
    const res = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('payment_in_progress');
  });

  it('a challenge left open for 15 minutes fails, and the shopper can pay again (issue 10 item 5)', async () => {
    const { intent, path, transactionId } = await challenged('4000000000003220');
    const sweep = async () => (await failAbandonedChallenges(paymentDeps(t.server.services))).map((tx) => tx.id);
    const shopperView = async () =>
      (await t.call('POST', '/embed/v1/intent', { body: { pk: shop.clientKey, client_secret: intent.client_secret } }))
        .json;
    // A reloaded widget learns where to resume the challenge.
    expect(await shopperView()).toMatchObject({ status: 'processing', transaction_id: transactionId });
    expect(new URL((await shopperView()).challenge_url).pathname).toBe(path);

    clock.advance(CHALLENGE_TIMEOUT_MS - 1000);
    expect(await sweep()).not.toContain(transactionId);
    expect(await intentStatus(intent.id)).toBe('processing');
    clock.advance(2000);
    expect(await sweep()).toContain(transactionId);
    expect(await intentStatus(intent.id)).toBe('failed');
    const tx = await t.server.services.repos.transactions.find(shop.id, transactionId);
    expect(tx).toMatchObject({
      status: TX_STATUS.declined,
      declineCode: 'authentication_failed',
      threeDS: 'challenge_failed',
    });
    expect(await shopperView()).not.toHaveProperty('challenge_url');
    // The late answer to the page changes nothing; a new attempt pays.
    expect((await t.call('POST', path, { body: { code: '1234' } })).json.status).toBe('failed');
    const retry = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
    expect(retry.json.status).toBe('succeeded');
    expect(await sweep()).not.toContain(retry.json.transaction_id);
  });

  it('an unknown challenge token is a 404', async () => {
    const res = await t.call('POST', `/embed/v1/challenge/chl_${'x'.repeat(32)}`, { body: { code: '1234' } });
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('challenge_invalid');
  });

  it('after 7 days the secret is refused, and the sweeper expires the intent', async () => {
    const waiting = await createIntent(t, shop.secretKey);
    const failed = await createIntent(t, shop.secretKey);
    await confirm(t, shop.clientKey, failed.client_secret, card('4000000000000002'));
    const abandoned = await challenged('4000000000003220');
    const paid = await createIntent(t, shop.secretKey);
    await confirm(t, shop.clientKey, paid.client_secret, card('4242424242424242'));

    clock.advance(7 * DAY - MINUTE);
    expect((await confirm(t, shop.clientKey, waiting.client_secret, card('4000000000000002'))).json.status).toBe(
      'failed',
    );
    clock.advance(MINUTE);
    const late = await confirm(t, shop.clientKey, waiting.client_secret, card('4242424242424242'));
    expect(late.status).toBe(400);
    expect(late.json.error.code).toBe('payment_intent_expired');

    const expired = await expireDueIntents(paymentDeps(t.server.services));
    expect(expired.map((i) => i.id)).toEqual(expect.arrayContaining([waiting.id, failed.id, abandoned.intent.id]));
    expect(expired.map((i) => i.id)).not.toContain(paid.id);
    for (const id of [waiting.id, failed.id, abandoned.intent.id]) expect(await intentStatus(id)).toBe('expired');
    expect(await intentStatus(paid.id)).toBe('succeeded');
    const abandonedTx = await t.server.services.repos.transactions.find(shop.id, abandoned.transactionId);
    expect(abandonedTx?.status).toBe(30);
    const events = await t.server.services.repos.eventFeed.forObject(shop.id, waiting.id);
    expect(events.at(-1)?.type).toBe('payment_intent.expired');
    expect(await expireDueIntents(paymentDeps(t.server.services))).toEqual([]);
  });

  it(`an intent refuses attempts after ${MAX_FAILED_ATTEMPTS_PER_INTENT} failures`, async () => {
    const intent = await createIntent(t, shop.secretKey);
    const ip = { 'x-test': 'per-intent' };
    for (let i = 0; i < MAX_FAILED_ATTEMPTS_PER_INTENT; i++) {
      const res = await confirm(t, shop.clientKey, intent.client_secret, card('4000000000000002'), { headers: ip });
      expect(res.json.status).toBe('failed');
    }
    const blocked = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
    expect(blocked.status).toBe(429);
    expect(blocked.json.error.code).toBe('too_many_attempts');
  });

  it(`a client IP is stopped after ${MAX_FAILURES_PER_IP_PER_MINUTE} failures a minute, then let through again`, async () => {
    // The earlier tests' failures count too: move past their minute first.
    clock.advance(2 * MINUTE);
    for (let i = 0; i < MAX_FAILURES_PER_IP_PER_MINUTE; i++) {
      const intent = await createIntent(t, shop.secretKey);
      expect((await confirm(t, shop.clientKey, intent.client_secret, card('4000000000000002'))).json.status).toBe(
        'failed',
      );
    }
    const intent = await createIntent(t, shop.secretKey);
    const blocked = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
    expect(blocked.status).toBe(429);
    expect(blocked.json.error.code).toBe('rate_limited');
    expect(blocked.headers.get('retry-after')).toBe('60');
    clock.advance(MINUTE + 1);
    expect((await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'))).json.status).toBe(
      'succeeded',
    );
  });
});
