import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_RETENTION_MS } from '../src/domain/idempotency.ts';
import { ENGINES } from './support/engines.ts';
import type { TestAccount } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';

describe.each(ENGINES)('Idempotency-Key (%s)', (engine) => {
  let shop: TestAccount;
  const clock = new ManualClock(Date.UTC(2026, 10, 1));
  const { t } = useTestServer(engine, { clock });
  // Sandbox intents: this server has no live connector (live ones are refused, live_mode_unavailable).
  const create = (key: string, body: Record<string, unknown>, account = shop) =>
    t.call('POST', '/api/v1/payment-intents', {
      key: account.secretKey,
      body: { mode: 'sandbox', ...body },
      headers: { 'idempotency-key': key },
    });
  const count = async (account = shop) =>
    (await t.call('GET', '/api/v1/payment-intents?limit=100', { key: account.secretKey })).json.data.length;

  it('replays the first response byte for byte, marked Idempotent-Replayed', async () => {
    shop = await t.newAccount();
    const first = await create('order-1', { amount: 1200, currency: 'USD' });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await create('order-1', { currency: 'USD', amount: 1200 }); // same request, keys reordered
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await count()).toBe(1);
  });

  it('the same key with another body -> 422 idempotency_key_reused', async () => {
    shop = await t.newAccount();
    await create('k', { amount: 100, currency: 'USD' });
    const res = await create('k', { amount: 101, currency: 'USD' });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ type: 'invalid_request', code: 'idempotency_key_reused' });
    expect(await count()).toBe(1);
  });

  it('keys belong to one account: another account may use the same key', async () => {
    shop = await t.newAccount();
    const other = await t.newAccount();
    const a = await create('shared', { amount: 100, currency: 'USD' });
    const b = await create('shared', { amount: 100, currency: 'USD' }, other);
    expect(b.status).toBe(200);
    expect(b.json.id).not.toBe(a.json.id);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
  });

  it('20 concurrent requests with one key create one intent; the rest are replays or 409s', async () => {
    shop = await t.newAccount();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => create('burst', { amount: 700, currency: 'USD' })),
    );
    const created = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
    const replays = results.filter((r) => r.headers.get('idempotent-replayed') === 'true');
    const inFlight = results.filter((r) => r.status === 409);
    expect(created).toHaveLength(1);
    expect(replays.length + inFlight.length).toBe(19);
    for (const r of replays) expect(r.text).toBe(created[0]?.text);
    for (const r of inFlight) expect(r.json.error.code).toBe('idempotency_key_in_use');
    expect(await count()).toBe(1);
  });

  it('a request refused by validation is not stored: the key can be used for the corrected request', async () => {
    shop = await t.newAccount();
    const bad = await create('fix-me', { amount: 0, currency: 'USD' });
    expect(bad.status).toBe(400);
    const good = await create('fix-me', { amount: 10, currency: 'USD' });
    expect(good.status).toBe(200);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a refusal from inside the operation is stored and replayed', async () => {
    shop = await t.newAccount();
    const first = await create('eur', { amount: 10, currency: 'EUR' });
    expect(first.status).toBe(400);
    const again = await create('eur', { amount: 10, currency: 'EUR' });
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a 5xx releases the key so the request can be retried', async () => {
    shop = await t.newAccount();
    const { repos } = t.server.services;
    const original = repos.intents.insert;
    repos.intents.insert = async () => {
      throw new Error('database went away');
    };
    const failed = await create('retry-me', { amount: 10, currency: 'USD' }).finally(() => {
      repos.intents.insert = original;
    });
    expect(failed.status).toBe(500);
    const retried = await create('retry-me', { amount: 10, currency: 'USD' });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('keys are kept 24 hours, then start afresh', async () => {
    shop = await t.newAccount();
    const first = await create('daily', { amount: 10, currency: 'USD' });
    clock.advance(IDEMPOTENCY_RETENTION_MS - 1000);
    expect((await create('daily', { amount: 10, currency: 'USD' })).text).toBe(first.text);
    clock.advance(2000);
    const later = await create('daily', { amount: 10, currency: 'USD' });
    expect(later.status).toBe(200);
    expect(later.json.id).not.toBe(first.json.id);
  });

  it('a key held by a request that died is taken over after the lock time', async () => {
    shop = await t.newAccount();
    const store = t.server.services.repos.idempotency;
    expect((await store.claim(shop.id, 'orphan', 'hash', clock.now())).kind).toBe('claimed');
    expect((await store.claim(shop.id, 'orphan', 'hash', clock.now())).kind).toBe('in_flight');
    clock.advance(IDEMPOTENCY_LOCK_MS + 1);
    expect((await store.claim(shop.id, 'orphan', 'hash', clock.now())).kind).toBe('claimed');
    expect((await store.claim(shop.id, 'orphan', 'hash', clock.now())).kind).toBe('in_flight');
  });

  it.each([
    ['', 400],
    ['k'.repeat(256), 400],
    ['k'.repeat(255), 200],
  ])('key %#: length edge -> %i', async (key, status) => {
    shop = await t.newAccount();
    const res = await create(key, { amount: 10, currency: 'USD' });
    expect(res.status).toBe(status);
    if (status === 400)
      expect(res.json.error).toMatchObject({ code: 'idempotency_key_invalid', param: 'Idempotency-Key' });
  });
});
