import { createServer } from 'node:http';
import { stringify } from 'safe-stable-stringify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../server/src/ids.ts';
import { startTestServer, type TestAccount, type TestServer } from '../../server/test/support/server.ts';
import { Obolus, ObolusError } from '../src/index.ts';
import { type FlakyProxy, startFlakyProxy } from './support/flaky-proxy.ts';

/** Retries, through a real loopback proxy that drops connections and answers 429 and 503. */
describe('@obolus/node retries', () => {
  let t: TestServer;
  let shop: TestAccount;
  let proxy: FlakyProxy;
  let obolus: Obolus;
  beforeAll(async () => {
    t = await startTestServer('sqlite');
    shop = await t.newAccount();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    proxy = await startFlakyProxy(t.url);
    obolus = new Obolus(shop.secretKey, { baseUrl: proxy.url, retryBaseDelayMs: 20 });
  });
  afterEach(() => proxy.close());

  const intentCount = async () => {
    const res = await t.call('GET', '/api/v1/payment-intents?limit=100', { key: shop.secretKey });
    return res.json.data.length as number;
  };

  it('a connection dropped after the server created the intent: retried with the same Idempotency-Key, one intent', async () => {
    const before = await intentCount();
    proxy.faults.push({ kind: 'drop-after-forward' });
    const intent = await obolus.paymentIntents.create({ amount: 1234, currency: 'USD', mode: 'sandbox' });
    expect(intent.amount).toBe(1234);
    expect(proxy.seen).toHaveLength(2);
    expect(proxy.seen.every((r) => r.forwarded)).toBe(true);
    const [first, second] = proxy.seen;
    expect(first?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(second?.idempotencyKey).toBe(first?.idempotencyKey);
    expect(await intentCount()).toBe(before + 1);
    expect((await obolus.paymentIntents.retrieve(intent.id)).id).toBe(intent.id);
  });

  it('a given Idempotency-Key is the one sent, on every try', async () => {
    proxy.faults.push({ kind: 'unavailable' }, { kind: 'unavailable' });
    const intent = await obolus.paymentIntents.create(
      { amount: 99, currency: 'USD', mode: 'sandbox' },
      { idempotencyKey: 'order-42' },
    );
    expect(proxy.seen.map((r) => r.idempotencyKey)).toEqual(['order-42', 'order-42', 'order-42']);
    const again = await obolus.paymentIntents.create(
      { amount: 99, currency: 'USD', mode: 'sandbox' },
      { idempotencyKey: 'order-42' },
    );
    expect(again).toEqual(intent);
  });

  it('429: waits for Retry-After before trying again', async () => {
    proxy.faults.push({ kind: 'rate-limit', retryAfter: '1' });
    const page = await obolus.paymentIntents.list({ limit: 1 });
    expect(page.data).toHaveLength(1);
    expect(proxy.seen).toHaveLength(2);
    const [first, second] = proxy.seen;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it('503 database_unavailable (a database restart or failover): waits for Retry-After, same Idempotency-Key, one intent', async () => {
    const before = await intentCount();
    proxy.faults.push({ kind: 'database-unavailable', retryAfter: '1' });
    const intent = await obolus.paymentIntents.create({ amount: 503, currency: 'USD', mode: 'sandbox' });
    expect(intent.amount).toBe(503);
    const [first, second] = proxy.seen;
    expect(proxy.seen.map((r) => r.status)).toEqual([503, 200]);
    expect(second!.idempotencyKey).toBe(first!.idempotencyKey);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
    expect(await intentCount()).toBe(before + 1);
  });

  it('5xx: retried with backoff up to maxRetries, then the ObolusError of the last answer', async () => {
    const client = new Obolus(shop.secretKey, { baseUrl: proxy.url, retryBaseDelayMs: 20, maxRetries: 3 });
    proxy.faults.push(...Array.from({ length: 4 }, () => ({ kind: 'unavailable' as const })));
    const error = await client.paymentIntents.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ObolusError);
    expect(error).toMatchObject({ status: 503, type: 'server' });
    expect(proxy.seen).toHaveLength(4);
    const gaps = proxy.seen.slice(1).map((r, i) => r.at - proxy.seen[i]!.at);
    // 20, 40, 80 ms ceilings with jitter between half and all of each.
    expect(gaps[2]).toBeGreaterThanOrEqual(35);
  });

  it('408 (the request reached the server too slowly, nothing done): retried with the same Idempotency-Key, one intent', async () => {
    const before = await intentCount();
    proxy.faults.push({ kind: 'request-timeout' });
    const intent = await obolus.paymentIntents.create({ amount: 408, currency: 'USD', mode: 'sandbox' });
    expect(intent.amount).toBe(408);
    expect(proxy.seen.map((r) => r.status)).toEqual([408, 200]);
    expect(proxy.seen[1]?.idempotencyKey).toBe(proxy.seen[0]?.idempotencyKey);
    expect(await intentCount()).toBe(before + 1);
  });

  it('a 4xx other than 408, 409 idempotency_key_in_use and 429 is not retried', async () => {
    await expect(obolus.paymentIntents.create({ amount: 0, currency: 'USD' })).rejects.toMatchObject({ status: 400 });
    expect(proxy.seen).toHaveLength(1);
  });

  it('409 idempotency_key_in_use is retried until the request holding the key has finished', async () => {
    // Another process is running a request with this key: the server answers 409 until it lets go.
    const body = { amount: 77, currency: 'USD', mode: 'sandbox' as const };
    const hash = sha256Hex(`POST /api/v1/payment-intents\n${stringify(body)}`);
    const { idempotency } = t.server.services.repos;
    expect(await idempotency.claim(shop.id, 'held-key', hash, Date.now())).toEqual({ kind: 'claimed' });
    setTimeout(() => void idempotency.release(shop.id, 'held-key'), 250);
    const client = new Obolus(shop.secretKey, { baseUrl: proxy.url, retryBaseDelayMs: 100, maxRetries: 5 });
    const intent = await client.paymentIntents.create(body, { idempotencyKey: 'held-key' });
    expect(intent.amount).toBe(77);
    expect(proxy.seen[0]?.status).toBe(409);
    expect(proxy.seen.at(-1)?.status).toBe(200);
    expect(new Set(proxy.seen.map((r) => r.idempotencyKey))).toEqual(new Set(['held-key']));
  });

  it('transactions and refunds go to appUrl, everything else to baseUrl', async () => {
    const split = new Obolus(shop.secretKey, { baseUrl: t.url, appUrl: proxy.url });
    await split.paymentIntents.list({ limit: 1 });
    await expect(split.transactions.retrieve('0123456789abcdef01234567')).rejects.toMatchObject({ status: 404 });
    await split.transactions.list({ limit: 1 });
    expect(proxy.seen.map((r) => r.path)).toEqual([
      '/api/v1/transactions/0123456789abcdef01234567',
      '/api/v1/transactions?limit=1',
    ]);
  });

  it('a per-request timeout: no answer in time is an ObolusError of code timeout', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const { port } = silent.address() as { port: number };
      const client = new Obolus(shop.secretKey, { baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 150, maxRetries: 1 });
      const started = Date.now();
      const error = await client.paymentIntents.retrieve('x').catch((e: unknown) => e);
      expect(error).toMatchObject({ type: 'connection', code: 'timeout', status: undefined });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });
});
