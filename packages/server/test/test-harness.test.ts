import { describe, expect, it } from 'vitest';
import type { PaymentIntent } from '../../node/src/index.ts';
import { lateBound } from './support/hooks.ts';
import { useTestServer } from './support/use-test-server.ts';

/** The test harness itself (decision 0290): what a file's constants stand for, and when. */
describe('useTestServer', () => {
  const { t, shop } = useTestServer('sqlite', { withAccount: 'Harness Shop' });
  const other = useTestServer('sqlite');
  // Read while the block is collected: no server runs yet.
  const early = (() => {
    try {
      return t.url;
    } catch (error) {
      return error;
    }
  })();

  it('refuses to be read before its server starts, naming what was read', () => {
    expect(early).toBeInstanceOf(Error);
    expect(String(early)).toContain('useTestServer: the server runs from beforeAll to afterAll');
  });

  it('stands for the running server and the account made for it', async () => {
    const created = await t.call<PaymentIntent>('POST', '/api/v1/payment-intents', {
      key: shop.secretKey,
      body: { amount: 1200, currency: 'USD', mode: 'sandbox' },
    });
    expect(created.status).toBe(200);
    expect(created.json.amount).toBe(1200);
    const read = await t.call<PaymentIntent>('GET', `/api/v1/payment-intents/${created.json.id}`, {
      key: shop.secretKey,
    });
    expect(read.json).toEqual(created.json);
    expect({ ...shop }).toEqual({ id: shop.id, secretKey: shop.secretKey, clientKey: shop.clientKey });
  });

  it('gives each use its own server and database; an account only when asked for', async () => {
    expect(other.t.url).not.toBe(t.url);
    expect(other.t.database.url).not.toBe(t.database.url);
    expect(() => other.shop.secretKey).toThrow('no account was asked for (withAccount)');
    expect((await other.t.call('GET', '/api/v1/payment-intents', { key: shop.secretKey })).status).toBe(401);
  });
});

describe('lateBound', () => {
  it('reads, calls and sets members of what its getter answers at that moment', () => {
    let current = {
      n: 1,
      twice() {
        return this.n * 2;
      },
    };
    const bound = lateBound(() => current);
    expect(bound.twice()).toBe(2);
    current = { n: 5, twice: current.twice };
    expect(bound.n).toBe(5);
    expect(bound.twice()).toBe(10);
    bound.n = 7;
    expect(current.n).toBe(7);
  });
});
