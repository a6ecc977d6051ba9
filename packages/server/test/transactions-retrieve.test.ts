import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { ApiError } from '../src/domain/errors.ts';
import { retrieveTransaction } from '../src/domain/transaction-queries.ts';
import { ACCOUNT_CACHE_TTL_MS } from '../src/store/account-cache.ts';
import { ENGINES } from './support/engines.ts';
import type { TestAccount } from './support/server.ts';
import { createSettledTransaction } from './support/transactions.ts';
import { useTestServer } from './support/use-test-server.ts';

/** Spec §2.2, field by field: every field present with exactly the JSON type the table gives. */
const SPEC_RECORD_SCHEMA = {
  type: 'object',
  required: [
    'id',
    'uuid',
    'created',
    'status',
    'statustext',
    'amountpaid',
    'currencypaid',
    'usdpaid',
    'usdfee',
    'card',
    'cardholder',
    'cardcountry',
    'cardbank',
    'paymenttypetext',
    'externalid',
    'product',
    'chargeback',
  ],
  properties: {
    id: { type: 'string' },
    uuid: { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' },
    created: { type: 'number' },
    status: { type: 'integer' },
    statustext: { type: 'string' },
    amountpaid: { type: 'number' },
    currencypaid: { type: 'string' },
    usdpaid: { type: 'number' },
    usdfee: { type: 'number' },
    card: { type: 'string', pattern: '^[0-9]{6}\\*+[0-9]{4}$' },
    cardholder: { type: 'string' },
    cardcountry: { type: 'string', pattern: '^[A-Z]{2}$' },
    cardbank: { type: 'string' },
    paymenttypetext: { type: 'string' },
    externalid: { type: 'string' },
    product: { type: 'string' },
    chargeback: { type: 'boolean' },
  },
  // "Clients must treat unknown fields as informational": the platform adds its own.
  additionalProperties: true,
};
const validateRecord = new Ajv({ allErrors: true }).compile(SPEC_RECORD_SCHEMA);

describe.each(ENGINES)('GET /api/v1/transactions/{id} (%s)', (engine) => {
  let other: TestAccount;
  // A millisecond part, so `created` must carry a fraction.
  const clock = new ManualClock(Date.UTC(2026, 10, 2, 9, 30, 0, 123));
  const { t, shop } = useTestServer(engine, { clock, withAccount: true });
  const get = (id: string, key: string | null) => t.call('GET', `/api/v1/transactions/${id}`, { key });

  beforeAll(async () => {
    other = await t.newAccount();
  });

  it('200: the record of §2.2, every field with its exact JSON type', async () => {
    const { id, intentId, transaction } = await createSettledTransaction(t, shop, {
      amount: 2000,
      externalid: 'order-77',
      product: 'prod_tshirt',
    });
    const res = await get(id, shop.secretKey);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(validateRecord(res.json), JSON.stringify(validateRecord.errors)).toBe(true);
    expect(res.json).toMatchObject({
      id,
      uuid: transaction.uuid,
      created: 1793611800.123,
      status: 20,
      statustext: 'Settled',
      amountpaid: 20,
      currencypaid: 'USD',
      usdpaid: 20,
      usdfee: 0.88, // 2.9 % of 20.00 is 0.58, plus 0.30
      card: '424242******4242',
      cardholder: 'Ada Lovelace',
      cardcountry: 'US',
      cardbank: 'Obolus Test Bank',
      paymenttypetext: 'Visa',
      externalid: 'order-77',
      product: 'prod_tshirt',
      chargeback: false,
      object: 'transaction',
      payment_intent: intentId,
      mode: 'sandbox',
      amount: 2000,
      amount_refunded: 0,
      fee: { amount: 88, percent_bps: 290, fixed: 30, currency: 'USD' },
      refunds: [],
    });
    // Major units are JSON numbers in the text itself, not strings.
    expect(res.text).toContain('"amountpaid":20,');
    expect(res.text).toContain('"chargeback":false');
  });

  it('a record with no externalid or product still has both, as strings', async () => {
    const { id } = await createSettledTransaction(t, shop);
    const res = await get(id, shop.secretKey);
    expect(validateRecord(res.json), JSON.stringify(validateRecord.errors)).toBe(true);
    expect(res.json).toMatchObject({ externalid: '', product: '' });
  });

  it('an attempt that captured nothing reports 0 paid and its own status', async () => {
    const { id } = await createSettledTransaction(t, shop, { status: 30, cardNumber: '4000000000000002' });
    const res = await get(id, shop.secretKey);
    expect(res.status).toBe(200);
    expect(validateRecord(res.json)).toBe(true);
    expect(res.json).toMatchObject({ status: 30, statustext: 'Declined', amountpaid: 0, usdpaid: 0, usdfee: 0 });
  });

  it('an American Express card is masked to its 15 digits', async () => {
    const { id } = await createSettledTransaction(t, shop, { cardNumber: '378282246310005' });
    expect((await get(id, shop.secretKey)).json.card).toBe('378282*****0005');
  });

  it('answers with Request-Id, no-store, and no CORS headers even when asked from a browser', async () => {
    const { id } = await createSettledTransaction(t, shop);
    const res = await t.call('GET', `/api/v1/transactions/${id}`, {
      key: shop.secretKey,
      headers: { origin: 'https://evil.example' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    for (const name of res.headers.keys()) expect(name).not.toMatch(/^access-control-/);
  });

  describe('§7.1 errors: a JSON object with a string field `error`', () => {
    const expectPlainError = (res: { status: number; json: any }, status: number) => {
      expect(res.status).toBe(status);
      expect(Object.keys(res.json)).toEqual(['error']);
      expect(typeof res.json.error).toBe('string');
      expect(res.json.error.length).toBeGreaterThan(0);
    };

    it.each([
      ['no Authorization header', null, undefined],
      ['an unknown secret key', 'sk_notARealKey000000000000000000000', undefined],
      ['a key that is not a secret key', 'whatever', undefined],
      ['a client key (pk_)', 'CLIENT_KEY', undefined],
      ['another scheme', null, 'Basic c2tfOg=='],
      ['Bearer with no key', null, 'Bearer '],
    ])('401 for %s', async (_case, key, header) => {
      const { id } = await createSettledTransaction(t, shop);
      const res = await t.call('GET', `/api/v1/transactions/${id}`, {
        key: key === 'CLIENT_KEY' ? shop.clientKey : key,
        headers: header ? { authorization: header } : {},
      });
      expectPlainError(res, 401);
      expect(res.text).not.toContain(id);
    });

    it('401 comes before 404: an unauthenticated caller learns nothing about ids', async () => {
      const { id } = await createSettledTransaction(t, shop);
      const existing = await get(id, 'sk_bad');
      const missing = await get('0'.repeat(24), 'sk_bad');
      expectPlainError(existing, 401);
      expect(existing.text).toBe(missing.text);
    });

    it('403 for an account that is not active, while another account works', async () => {
      const closed = await t.newAccount();
      const { id: closedTx } = await createSettledTransaction(t, closed);
      const { id: openTx } = await createSettledTransaction(t, shop);
      await t.server.services.repos.accounts.setStatus(closed.id, 'inactive');
      // Authenticated accounts are cached for a few seconds: a deactivation lands within that.
      clock.advance(ACCOUNT_CACHE_TTL_MS);
      const refused = await get(closedTx, closed.secretKey);
      expectPlainError(refused, 403);
      expect(refused.json.error).toBe('This account is not active.');
      // Even for an id it does not own: the account is refused before anything is looked up.
      expectPlainError(await get(openTx, closed.secretKey), 403);
      expect((await get(openTx, shop.secretKey)).status).toBe(200);
      await t.server.services.repos.accounts.setStatus(closed.id, 'active');
      clock.advance(ACCOUNT_CACHE_TTL_MS);
      expect((await get(closedTx, closed.secretKey)).status).toBe(200);
    });

    it('404 for an id that does not exist', async () => {
      const res = await get('0'.repeat(24), shop.secretKey);
      expectPlainError(res, 404);
      expect(res.json.error).toBe('No such transaction.');
    });

    it.each([
      ['shorter than an id', 'abc'],
      ['not hex', 'zzzzzzzzzzzzzzzzzzzzzzzz'],
      ['an intent id', 'INTENT'],
      ['escaped text', encodeURIComponent("' or 1=1 --")],
      ['very long', 'a'.repeat(90)],
    ])('404 for an id %s', async (_case, id) => {
      const intent = await t.call('POST', '/api/v1/payment-intents', {
        key: shop.secretKey,
        body: { amount: 100, currency: 'USD', mode: 'sandbox' },
      });
      const res = await get(id === 'INTENT' ? intent.json.id : id, shop.secretKey);
      expectPlainError(res, 404);
      expect(res.json.error).toBe('No such transaction.');
    });

    it("404 for another account's transaction, byte for byte the 404 of a missing one", async () => {
      const { id: foreign } = await createSettledTransaction(t, other);
      // The same shape of id: only the account differs.
      const missing = `${foreign.slice(0, 8)}${'0'.repeat(16)}`;
      const a = await get(foreign, shop.secretKey);
      const b = await get(missing, shop.secretKey);
      expectPlainError(a, 404);
      expect(a.text).toBe(b.text);
      expect(a.headers.get('content-type')).toBe(b.headers.get('content-type'));
      expect(a.headers.get('content-length')).toBe(b.headers.get('content-length'));
      expect(a.text).not.toContain(foreign);
      // And its owner does see it.
      expect((await get(foreign, other.secretKey)).status).toBe(200);
    });

    it('a foreign id and a missing id take the same path through the store (no timing oracle)', async () => {
      const { id: foreign } = await createSettledTransaction(t, other);
      const account = await t.server.services.repos.accounts.find(shop.id);
      const trace = async (id: string) => {
        const calls: string[] = [];
        const stores = recording(t.server.services.repos, calls);
        const error = await retrieveTransaction(stores, account!, id).catch((e: unknown) => e);
        return { calls, error };
      };
      const a = await trace(foreign);
      const b = await trace(`${foreign.slice(0, 8)}${'0'.repeat(16)}`);
      expect(a.error).toBeInstanceOf(ApiError);
      expect(a.calls).toEqual(['transactions.find']);
      expect(b.calls).toEqual(a.calls);
      expect([(b.error as ApiError).code, (b.error as ApiError).message]).toEqual([
        (a.error as ApiError).code,
        (a.error as ApiError).message,
      ]);
    });
  });

  it('unknown paths under /api/v1/transactions answer in the same {error} shape', async () => {
    const res = await t.call('GET', '/api/v1/transactions/abc/nothing-here', { key: shop.secretKey });
    expect(res.status).toBe(404);
    expect(Object.keys(res.json)).toEqual(['error']);
  });
});

/** The real repositories, with every method call written down in order (no behaviour changed). */
function recording<T extends object>(repos: T, calls: string[]): T {
  const wrap = (name: string, target: object) =>
    new Proxy(target, {
      get(obj, prop) {
        const value = Reflect.get(obj, prop, obj);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(`${name}.${String(prop)}`);
          return value.apply(obj, args);
        };
      },
    });
  return Object.fromEntries(Object.entries(repos).map(([name, repo]) => [name, wrap(name, repo as object)])) as T;
}
