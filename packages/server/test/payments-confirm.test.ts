import { describe, expect, it } from 'vitest';
import { SANDBOX_TEST_CARDS } from '../src/connectors/sandbox/sandbox.ts';
import { createPaymentIntent } from '../src/domain/intents.ts';
import type { Processor } from '../src/domain/payments/ports.ts';
import { TX_STATUS } from '../src/domain/transactions.ts';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent, encryptCard } from './support/widget-client.ts';

const EXPECTED: Record<string, { status: string; code?: string }> = {
  '4242424242424242': { status: 'succeeded' },
  '5555555555554444': { status: 'succeeded' },
  '378282246310005': { status: 'succeeded' },
  '4000000000000002': { status: 'failed', code: 'card_declined' },
  '4000000000009995': { status: 'failed', code: 'insufficient_funds' },
  '4000000000000069': { status: 'failed', code: 'expired_card' },
  '4000000000000127': { status: 'failed', code: 'incorrect_cvc' },
  '4000000000000119': { status: 'failed', code: 'processing_error' },
  '4000000000003220': { status: 'requires_action' },
  '4000008400001629': { status: 'requires_action' },
  '4000000000003055': { status: 'succeeded' },
  '4000000000000259': { status: 'succeeded' },
};

describe.each(ENGINES)('confirming a payment through the widget API (%s)', (engine) => {
  const { t, shop } = useTestServer(engine, { withAccount: true });

  it('knows every test card of docs/test-cards.md', () => {
    expect(SANDBOX_TEST_CARDS.map((c) => c.number).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))('%s -> %o', async (number, expected) => {
    const intent = await createIntent(t, shop.secretKey);
    const res = await confirm(t, shop.clientKey, intent.client_secret, card(number));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      status: expected.status,
      payment_intent: intent.id,
      success: expected.status === 'succeeded',
    });
    expect(res.json.transaction_id).toMatch(/^[0-9a-f]{24}$/);
    if (expected.code) expect(res.json.error).toMatchObject({ code: expected.code, type: 'invalid_request' });
    if (expected.status === 'requires_action') {
      expect(res.json.challenge_url).toMatch(new RegExp(`^${t.url}/embed/v1/challenge/chl_[0-9A-Za-z]{32}$`));
    }
    const after = await t.call('GET', `/api/v1/payment-intents/${intent.id}`, { key: shop.secretKey });
    const intentStatus = { succeeded: 'succeeded', failed: 'failed', requires_action: 'processing' }[expected.status];
    expect(after.json.status).toBe(intentStatus);
    expect(after.json.last_transaction).toBe(res.json.transaction_id);
  });

  it('a transaction read back has every §2.2 field with the right type', async () => {
    const intent = await createIntent(t, shop.secretKey, { externalid: 'order-77', amount: 12345 });
    const res = await confirm(
      t,
      shop.clientKey,
      intent.client_secret,
      card('5555555555554444', { name: 'Grace Hopper' }),
    );
    const tx = await t.server.services.repos.transactions.find(shop.id, res.json.transaction_id);
    const { transactionRecord } = await import('../src/domain/transactions.ts');
    const record = transactionRecord(tx!);
    expect(record).toMatchObject({
      id: res.json.transaction_id,
      status: 20,
      statustext: 'Settled',
      amountpaid: 123.45,
      currencypaid: 'USD',
      usdpaid: 123.45,
      usdfee: 3.88, // 2.9 % of 123.45 = 3.58005 -> 3.58, + 0.30
      card: '555555******4444',
      cardholder: 'Grace Hopper',
      cardcountry: 'US',
      paymenttypetext: 'Mastercard',
      externalid: 'order-77',
      product: '',
      chargeback: false,
      payment_intent: intent.id,
      mode: 'sandbox',
    });
    expect(record.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(typeof record.created).toBe('number');
    expect(record.created).toBeCloseTo(Date.now() / 1000, -1);
    expect(typeof record.cardbank).toBe('string');
    expect(record.cardbank.length).toBeGreaterThan(0);
  });

  it('never stores the CVC or the full card number', async () => {
    const intent = await createIntent(t, shop.secretKey);
    await confirm(t, shop.clientKey, intent.client_secret, card('4000000000003055', { cvc: '918' }));
    const { db } = t.server.services.database;
    const rows = await db.selectFrom('transactions').selectAll().execute();
    const events = await db.selectFrom('events').selectAll().execute();
    const stored = JSON.stringify([rows, events]);
    expect(stored).not.toContain('4000000000003055');
    expect(stored).not.toMatch(/"cvc"/i);
    expect(Object.keys(rows[0] ?? {}).some((column) => /cvc|cvv|pan|number/i.test(column))).toBe(false);
    expect(t.logs()).not.toContain('4000000000003055');
  });

  it('a decline, then a successful retry: two attempts, one paid', async () => {
    const intent = await createIntent(t, shop.secretKey);
    const declined = await confirm(t, shop.clientKey, intent.client_secret, card('4000000000000002'));
    expect(declined.json.status).toBe('failed');
    const paid = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
    expect(paid.json.status).toBe('succeeded');
    expect(paid.json.transaction_id).not.toBe(declined.json.transaction_id);
    const txs = await t.server.services.repos.transactions.forIntent(shop.id, intent.id);
    expect(txs.map((tx) => tx.status)).toEqual([TX_STATUS.declined, TX_STATUS.settled]);
    const again = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
    expect(again.status).toBe(400);
    expect(again.json.error.code).toBe('payment_intent_unexpected_state');
  });

  it('writes the status changes to the events outbox in order', async () => {
    const intent = await createIntent(t, shop.secretKey);
    const paid = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
    const { eventFeed: events } = t.server.services.repos;
    const forIntent = await events.forObject(shop.id, intent.id);
    expect(forIntent.map((e) => [e.type, e.objectSeq])).toEqual([
      ['payment_intent.created', 1],
      ['payment_intent.processing', 2],
      ['payment_intent.succeeded', 3],
    ]);
    expect((forIntent[2]!.object as { status: string }).status).toBe('succeeded');
    const forTx = await events.forObject(shop.id, paid.json.transaction_id);
    expect(forTx.map((e) => e.type)).toEqual(['transaction.created', 'transaction.updated']);
    expect((forTx[1]!.object as { status: number }).status).toBe(20);
  });

  it('mode mismatch: refused with mode_mismatch and nothing charged', async () => {
    const intent = await createIntent(t, shop.secretKey);
    const res = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'), { mode: 'live' });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'mode_mismatch', param: 'mode' });
    expect(await t.server.services.repos.transactions.forIntent(shop.id, intent.id)).toEqual([]);
  });

  it('a live intent made while a connector was configured, paid after it was removed: refused, stays payable', async () => {
    // This server has no live connector: the intent is made as a server that had one made it.
    const withConnector = { forMode: () => ({ name: 'stripe' }) as Processor };
    const account = await t.server.services.repos.accounts.find(shop.id);
    if (!account) throw new Error('no account');
    const made = await createPaymentIntent(
      t.server.services.repos.intents,
      t.server.services.clock,
      account,
      {
        amount: 2000,
        currency: 'USD',
        mode: 'live',
      },
      withConnector,
    );
    const intent = { id: made.id, client_secret: made.clientSecret };
    const res = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'), { mode: 'live' });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('live_payments_unavailable');
    const after = await t.call('GET', `/api/v1/payment-intents/${intent.id}`, { key: shop.secretKey });
    expect(after.json.status).toBe('requires_payment');
    expect(await t.server.services.repos.transactions.forIntent(shop.id, intent.id)).toEqual([]);
  });

  it('a wrong secret, a foreign secret and another account key are the same refusal', async () => {
    const other = await t.newAccount();
    const intent = await createIntent(t, shop.secretKey);
    const foreign = await createIntent(t, other.secretKey);
    const tampered = `${intent.client_secret.slice(0, -1)}${intent.client_secret.endsWith('a') ? 'b' : 'a'}`;
    const answers = await Promise.all([
      confirm(t, shop.clientKey, tampered, card('4242424242424242')),
      confirm(t, shop.clientKey, foreign.client_secret, card('4242424242424242')),
      confirm(t, other.clientKey, intent.client_secret, card('4242424242424242')),
      confirm(t, shop.clientKey, 'pi_nonsense', card('4242424242424242')),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(res.json.error).toMatchObject({ code: 'client_secret_invalid', param: 'client_secret' });
    }
    const unknownPk = await confirm(t, 'pk_unknownunknown', intent.client_secret, card('4242424242424242'));
    expect(unknownPk.json.error.code).toBe('client_key_invalid');
  });

  describe('malformed or tampered card encryption', () => {
    it.each([
      ['not a JWE', async (_intent: string) => 'hello'],
      ['five dots of nothing', async (_intent: string) => '....'],
      [
        'a tampered ciphertext',
        async (intent: string) => {
          const jwe = await encryptCard(t, intent, card('4242424242424242'));
          const parts = jwe.split('.');
          const ct = parts[3] as string;
          parts[3] = (ct[0] === 'A' ? 'B' : 'A') + ct.slice(1);
          return parts.join('.');
        },
      ],
      [
        'an unknown key id',
        async (intent: string) => encryptCard(t, intent, card('4242424242424242'), { kid: 'ck_unknown' }),
      ],
      [
        'ECDH-ES (no key wrap) instead of ECDH-ES+A256KW',
        async (intent: string) => encryptCard(t, intent, card('4242424242424242'), { alg: 'ECDH-ES' }),
      ],
      // JSON, but no card: null, a number, a string, an array (issue 10, item 11).
      ['a plaintext of null', async (intent: string) => encryptCard(t, intent, null)],
      ['a plaintext of a number', async (intent: string) => encryptCard(t, intent, 42)],
      ['a plaintext of a string', async (intent: string) => encryptCard(t, intent, '4242424242424242')],
      ['a plaintext of an array', async (intent: string) => encryptCard(t, intent, ['4242424242424242'])],
      [
        'no binding to a payment in the header',
        async (intent: string) => encryptCard(t, intent, card('4242424242424242'), { binding: {} }),
      ],
    ])('%s -> card_encryption_invalid, nothing charged', async (_name, make) => {
      const intent = await createIntent(t, shop.secretKey);
      const res = await confirm(t, shop.clientKey, intent.client_secret, null, { jwe: await make(intent.id) });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'card_encryption_invalid', param: 'card' });
      expect(await t.server.services.repos.transactions.forIntent(shop.id, intent.id)).toEqual([]);
    });
  });

  it.each([
    [{ number: '4242424242424241' }, 'card_number_invalid', 'card[number]'],
    [{ exp_year: 2001 }, 'card_expiry_invalid', 'card[exp_year]'],
    [{ exp_month: 13 }, 'card_expiry_invalid', 'card[exp_month]'],
    [{ cvc: '12' }, 'card_cvc_invalid', 'card[cvc]'],
    [{ name: '  ' }, 'card_name_missing', 'card[name]'],
  ])('card check %o -> %s', async (over, code, param) => {
    const intent = await createIntent(t, shop.secretKey);
    const res = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242', over as never));
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code, param });
  });

  it('a number that is not a test card is refused in sandbox', async () => {
    const intent = await createIntent(t, shop.secretKey);
    const res = await confirm(t, shop.clientKey, intent.client_secret, card('4111111111111111'));
    expect(res.json).toMatchObject({ status: 'failed', error: { code: 'card_not_test' } });
  });

  it('the shopper view of an intent has nothing the merchant keeps private (the order reference is for the shopper)', async () => {
    const intent = await createIntent(t, shop.secretKey, {
      metadata: { secret: 'x' },
      reference: 'ref-1',
      externalid: 'ext-1',
      description: 'A nice hat',
      theme: 'dark',
    });
    const res = await t.call('POST', '/embed/v1/intent', {
      body: { pk: shop.clientKey, client_secret: intent.client_secret },
    });
    expect(res.json).toEqual({
      id: intent.id,
      amount: 2000,
      currency: 'USD',
      mode: 'sandbox',
      status: 'requires_payment',
      merchant_name: expect.any(String),
      description: 'A nice hat',
      reference: 'ref-1',
      theme: 'dark',
      server_time: expect.any(Number),
      transaction_id: null,
    });
  });
});
