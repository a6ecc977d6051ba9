import { describe, expect, it } from 'vitest';
import { Obolus } from '../../node/src/index.ts';
import { ManualClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { DEFAULT_API_RATE_LIMITS } from '../src/domain/api-rate-limits.ts';
import type { AccountId } from '../src/ids.ts';
import { ENGINES } from './support/engines.ts';
import { limits } from './support/rate-limits.ts';
import type { TestAccount } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';

/** A window start of the manual clock: every request of a test lands in one known window. */
const WINDOW = Date.UTC(2026, 10, 23, 3, 0, 0);

describe('configuration', () => {
  it("defaults to Stripe's 100 live and 25 sandbox requests a second per account, 1000 per network", () => {
    expect(loadConfig({}).apiRateLimits).toEqual({ live: 100, sandbox: 25, address: 1000, syncMs: 100 });
    expect(DEFAULT_API_RATE_LIMITS).toMatchObject({ live: 100, sandbox: 25 });
  });

  it('takes other figures, or off, from the environment and refuses nonsense naming the variable', () => {
    const config = loadConfig({
      OBOLUS_API_RATE_LIMIT_LIVE: '500',
      OBOLUS_API_RATE_LIMIT_SANDBOX: 'off',
      OBOLUS_API_RATE_LIMIT_ADDRESS: '20',
      OBOLUS_API_RATE_LIMIT_SYNC_MS: '250',
    });
    expect(config.apiRateLimits).toEqual({ live: 500, sandbox: 0, address: 20, syncMs: 250 });
    expect(() => loadConfig({ OBOLUS_API_RATE_LIMIT_LIVE: '0' })).toThrow(/OBOLUS_API_RATE_LIMIT_LIVE must be 1/);
    expect(() => loadConfig({ OBOLUS_API_RATE_LIMIT_ADDRESS: '1.5' })).toThrow(/OBOLUS_API_RATE_LIMIT_ADDRESS/);
    expect(() => loadConfig({ OBOLUS_API_RATE_LIMIT_SYNC_MS: '5' })).toThrow(/OBOLUS_API_RATE_LIMIT_SYNC_MS/);
  });
});

describe.each(ENGINES)('API rate limits at their edges (%s)', (engine) => {
  const clock = new ManualClock(WINDOW);
  // Live intents need a live connector (decision 0199).
  const { t } = useTestServer(engine, {
    clock,
    config: { apiRateLimits: limits({ live: 5, sandbox: 3 }) },
    withLiveConnector: true,
  });

  const list = (shop: TestAccount) => t.call('GET', '/api/v1/payment-intents', { key: shop.secretKey });
  const create = (shop: TestAccount, mode: 'live' | 'sandbox', idempotencyKey?: string) =>
    t.call('POST', '/api/v1/payment-intents', {
      key: shop.secretKey,
      body: { amount: 1000, currency: 'USD', mode },
      ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
    });

  it('admits exactly the limit in a window; the next is a 429 rate_limit with Retry-After, in the error shape', async () => {
    clock.set(WINDOW + 10_000);
    const shop = await t.newAccount();
    for (let i = 0; i < 5; i++) expect((await list(shop)).status).toBe(200);
    const refused = await list(shop);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json).toEqual({
      error: {
        type: 'invalid_request',
        code: 'rate_limit',
        message: expect.stringContaining('Too many live requests'),
        request_id: refused.headers.get('request-id'),
      },
    });
    // One warning for the operator, naming the key as the dashboard does; the refusals at debug.
    expect((await list(shop)).status).toBe(429);
    const warnings = t
      .logs()
      .split('\n')
      .filter((line) => line.includes('API rate limit reached'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] as string)).toMatchObject({
      level: 40,
      limit: 'live',
      key_last4: shop.secretKey.slice(-4),
    });
    expect(t.logs()).not.toContain(shop.secretKey);
    // A refused POST claimed nothing: the same Idempotency-Key works in the next window.
    expect((await create(shop, 'live', 'order-1')).status).toBe(429);
    clock.advance(999);
    expect((await list(shop)).status).toBe(429);
    clock.advance(1);
    const retried = await create(shop, 'live', 'order-1');
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    for (let i = 0; i < 4; i++) expect((await list(shop)).status).toBe(200);
    expect((await list(shop)).status).toBe(429);
  });

  it('counts sandbox requests apart, at their own limit, and each key apart', async () => {
    clock.set(WINDOW + 20_000);
    const shop = await t.newAccount();
    const other = await t.newAccount();
    for (let i = 0; i < 3; i++) expect((await create(shop, 'sandbox')).status).toBe(200);
    const refused = await create(shop, 'sandbox');
    expect(refused.status).toBe(429);
    expect(refused.json.error.message).toContain('Too many sandbox requests');
    // The live allowance of the same key, and another account's, are untouched.
    for (let i = 0; i < 5; i++) expect((await list(shop)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await create(other, 'sandbox')).status).toBe(200);
    expect((await create(other, 'sandbox')).status).toBe(429);
  });

  it("refuses a read over its key's limit before the key is looked up: an unknown key gets 429, not 401", async () => {
    clock.set(WINDOW + 40_000);
    const unknown = { id: 'acct_x' as AccountId, secretKey: 'sk_notakey0000000000000000000000000', clientKey: 'pk_x' };
    for (let i = 0; i < 5; i++) expect((await list(unknown)).status).toBe(401);
    expect((await list(unknown)).status).toBe(429);
  });

  it('answers the transactions surface in its own shape, with Retry-After', async () => {
    clock.set(WINDOW + 30_000);
    const shop = await t.newAccount();
    const get = () => t.call('GET', '/api/v1/transactions/0123456789abcdef01234567', { key: shop.secretKey });
    for (let i = 0; i < 5; i++) expect((await get()).status).toBe(404);
    const refused = await get();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json).toEqual({ error: expect.stringContaining('Too many live requests') });
  });
});

describe.each(ENGINES)("API rate limits at Stripe's defaults (%s)", (engine) => {
  const clock = new ManualClock(WINDOW);
  const { t } = useTestServer(engine, { clock, config: { apiRateLimits: DEFAULT_API_RATE_LIMITS } });

  it('admit 100 live and 25 sandbox requests of one key in one second, and no more', async () => {
    clock.set(WINDOW + 5_000);
    const shop = await t.newAccount();
    const statuses = async (n: number, send: () => Promise<Response>) => {
      const all: number[] = [];
      // Ten at a time: a burst as an integration sends it, without a thousand sockets.
      for (let i = 0; i < n; i += 10)
        all.push(...(await Promise.all(Array.from({ length: 10 }, send))).map((r) => r.status));
      return all.slice(0, n);
    };
    const auth = { authorization: `Bearer ${shop.secretKey}`, 'content-type': 'application/json' };
    const live = await statuses(110, () => fetch(`${t.url}/api/v1/payment-intents?limit=1`, { headers: auth }));
    const sandbox = await statuses(30, () =>
      fetch(`${t.url}/api/v1/payment-intents`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ amount: 500, currency: 'USD', mode: 'sandbox' }),
      }),
    );
    expect(live.filter((s) => s === 200)).toHaveLength(100);
    expect(live.filter((s) => s === 429)).toHaveLength(10);
    expect(sandbox.filter((s) => s === 200)).toHaveLength(25);
    expect(sandbox.filter((s) => s === 429)).toHaveLength(5);
  });
});

describe('the Node SDK against a real 429', () => {
  const { t } = useTestServer('sqlite', { config: { apiRateLimits: limits({ sandbox: 2 }) } });

  it('waits for Retry-After and retries with the same Idempotency-Key: every intent made once', async () => {
    const shop = await t.newAccount();
    const obolus = new Obolus(shop.secretKey, { baseUrl: t.url, maxRetries: 5 });
    const started = Date.now();
    const created = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((n) =>
        obolus.paymentIntents.create({ amount: 100 * n, currency: 'USD', mode: 'sandbox' }),
      ),
    );
    // Six creates at 2 a second span three windows, even if the first two end one: a second at least.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(created.map((intent) => intent.amount).sort()).toEqual([100, 200, 300, 400, 500, 600]);
    const listed = await t.call('GET', '/api/v1/payment-intents?limit=100', { key: shop.secretKey });
    expect(listed.json.data).toHaveLength(6);
  });
});

describe.each(ENGINES)('API rate limit per client network (%s)', (engine) => {
  const clock = new ManualClock(WINDOW);
  // The test talks from 127.0.0.1: the trusted proxy that names each client in X-Forwarded-For.
  const { t } = useTestServer(engine, {
    clock,
    config: { trustProxy: ['127.0.0.1'], apiRateLimits: limits({ address: 4 }) },
  });

  const from = (address: string, key?: string) =>
    t.call('GET', '/api/v1/products', { ...(key ? { key } : {}), headers: { 'x-forwarded-for': address } });

  it('refuses the fifth request of a network whatever the key, even before the key is checked', async () => {
    clock.set(WINDOW + 1_000);
    const [a, b] = [await t.newAccount(), await t.newAccount()];
    expect((await from('203.0.113.7', a.secretKey)).status).toBe(200);
    expect((await from('203.0.113.7', b.secretKey)).status).toBe(200);
    expect((await from('203.0.113.7', 'sk_guessed')).status).toBe(401);
    expect((await from('203.0.113.7')).status).toBe(401);
    const refused = await from('203.0.113.7', 'sk_guessed');
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: 'rate_limit', message: expect.stringContaining('network') });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await from('203.0.113.8', a.secretKey)).status).toBe(200);
  });

  it('counts an IPv6 client per /64', async () => {
    clock.set(WINDOW + 2_000);
    const shop = await t.newAccount();
    for (let i = 1; i <= 4; i++) expect((await from(`2001:db8:5:6::${i}`, shop.secretKey)).status).toBe(200);
    expect((await from('2001:db8:5:6:ffff::1', shop.secretKey)).status).toBe(429);
    expect((await from('2001:db8:5:7::1', shop.secretKey)).status).toBe(200);
  });
});
