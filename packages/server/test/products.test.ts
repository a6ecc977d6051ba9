import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { createAccount } from '../src/domain/accounts.ts';
import { setAllowedOrigins } from '../src/domain/allowed-origins.ts';
import { ENGINES } from './support/engines.ts';
import type { TestAccount } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';

const SHOP_ORIGIN = 'https://shop.example';

describe.each(ENGINES)('catalog products API (%s)', (engine) => {
  let shop: TestAccount;
  let other: TestAccount;
  const clock = new ManualClock(Date.UTC(2026, 10, 1));

  const { t } = useTestServer(engine, { clock });
  beforeAll(async () => {
    const { services } = t.server;
    const created = await createAccount(services.repos.accounts, services.clock, {
      name: 'Origin Shop',
      email: 'o@shop.example',
      allowedOrigins: [SHOP_ORIGIN],
    });
    shop = { id: created.account.id, secretKey: created.secretKey, clientKey: created.account.clientKey };
    other = await t.newAccount();
  });

  const create = (body: unknown, key = shop.secretKey) => t.call('POST', '/api/v1/products', { key, body });
  const valid = { name: 'Two books', amount: 2000, currency: 'USD' };

  it('creates a product and answers it in full', async () => {
    const res = await create({ ...valid, description: 'A pair of novels', mode: 'sandbox' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      object: 'product',
      name: 'Two books',
      description: 'A pair of novels',
      amount: 2000,
      currency: 'USD',
      mode: 'sandbox',
      active: true,
      success_url: null,
      created: Math.floor(clock.now() / 1000),
    });
    expect(res.json.id).toMatch(/^prod_[0-9A-Za-z]{24}$/);
    expect(res.json.url).toMatch(new RegExp(`/${res.json.id}$`));
  });

  it('defaults to live mode, accepts usd and an inactive start', async () => {
    const res = await create({ ...valid, currency: 'usd', active: false });
    expect(res.json).toMatchObject({ mode: 'live', currency: 'USD', active: false });
  });

  it.each([
    [{ amount: 0 }, 'amount', false],
    [{ amount: 1 }, 'amount', true],
    [{ amount: 99_999_999 }, 'amount', true],
    [{ amount: 100_000_000 }, 'amount', false],
    [{ amount: 10.5 }, 'amount', false],
    [{ amount: '2000' }, 'amount', false],
    [{ name: '' }, 'name', false],
    [{ name: 'x' }, 'name', true],
    [{ name: 'x'.repeat(100) }, 'name', true],
    [{ name: 'x'.repeat(101) }, 'name', false],
    [{ name: '😀'.repeat(100) }, 'name', true],
    [{ name: '   ' }, 'name', false],
    [{ description: 'abcd' }, 'description', false],
    [{ description: 'abcde' }, 'description', true],
    [{ description: 'd'.repeat(100) }, 'description', true],
    [{ description: 'd'.repeat(101) }, 'description', false],
    [{ currency: 'EUR' }, 'currency', false],
    [{ mode: 'test' }, 'mode', false],
    [{ active: 'yes' }, 'active', false],
    [{ colour: 'red' }, 'colour', false],
  ])('%j: %s accepted=%s', async (change, param, accepted) => {
    const res = await create({ ...valid, ...change });
    if (accepted) {
      expect(res.status).toBe(200);
      return;
    }
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request', param });
    expect(res.json.error.message).toContain(param);
  });

  it.each(['name', 'amount', 'currency'])('requires %s', async (field) => {
    const body: Record<string, unknown> = { ...valid };
    delete body[field];
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_missing', param: field });
  });

  it('takes a success_url only on an allowed origin of the account', async () => {
    const ok = await create({ ...valid, success_url: `${SHOP_ORIGIN}/thanks?order=1` });
    expect(ok.status).toBe(200);
    expect(ok.json.success_url).toBe(`${SHOP_ORIGIN}/thanks?order=1`);
    for (const url of [
      'https://evil.example/thanks',
      'javascript:alert(1)',
      'not a url',
      'https://u:p@shop.example/',
    ]) {
      const res = await create({ ...valid, success_url: url });
      expect(res.status, url).toBe(400);
      expect(res.json.error.param).toBe('success_url');
    }
    // An account without allowed origins can have no redirect at all.
    const none = await create({ ...valid, success_url: `${SHOP_ORIGIN}/thanks` }, other.secretKey);
    expect(none.status).toBe(400);
    expect(none.json.error.message).toMatch(/allowed origins/);
  });

  it('success_url may be 2000 characters, not 2001', async () => {
    const url = (length: number) => `${SHOP_ORIGIN}/${'a'.repeat(length - SHOP_ORIGIN.length - 1)}`;
    expect((await create({ ...valid, success_url: url(2000) })).status).toBe(200);
    const long = await create({ ...valid, success_url: url(2001) });
    expect(long.status).toBe(400);
    expect(long.json.error.param).toBe('success_url');
  });

  it('an account has at most 20 allowed origins', async () => {
    const store = t.server.services.repos.allowedOrigins;
    const origins = (n: number) => Array.from({ length: n }, (_, i) => `https://shop${i}.example`);
    expect(await setAllowedOrigins(store, other.id, origins(20))).toHaveLength(20);
    await expect(setAllowedOrigins(store, other.id, origins(21))).rejects.toMatchObject({ param: 'origins' });
    await setAllowedOrigins(store, other.id, []);
  });

  it('retrieves its own products; a foreign id is the same 404 as a missing one', async () => {
    const mine = (await create(valid)).json;
    const theirs = (await create(valid, other.secretKey)).json;
    const got = await t.call('GET', `/api/v1/products/${mine.id}`, { key: shop.secretKey });
    expect(got.status).toBe(200);
    expect(got.json).toEqual(mine);
    const missingId = `prod_${'0'.repeat(24)}`;
    const foreign = await t.call('GET', `/api/v1/products/${theirs.id}`, { key: shop.secretKey });
    const missing = await t.call('GET', `/api/v1/products/${missingId}`, { key: shop.secretKey });
    expect(foreign.status).toBe(404);
    const strip = (json: any, id: string) => ({
      ...json.error,
      request_id: 0,
      message: json.error.message.replace(id, 'ID'),
    });
    expect(strip(foreign.json, theirs.id)).toEqual(strip(missing.json, missingId));
    expect(foreign.json.error).toMatchObject({ code: 'resource_missing', param: 'id' });
  });

  it('updates name, description, amount, active and success_url, and nothing else', async () => {
    const product = (await create({ ...valid, description: 'First words' })).json;
    clock.advance(5000);
    const path = `/api/v1/products/${product.id}`;
    const res = await t.call('POST', path, {
      key: shop.secretKey,
      body: { name: 'Three books', amount: 2500, active: false, success_url: `${SHOP_ORIGIN}/done` },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      name: 'Three books',
      amount: 2500,
      active: false,
      description: 'First words',
      success_url: `${SHOP_ORIGIN}/done`,
      created: product.created,
      updated: product.created + 5,
    });
    const cleared = await t.call('POST', path, { key: shop.secretKey, body: { description: null, success_url: null } });
    expect(cleared.json).toMatchObject({ description: null, success_url: null, name: 'Three books' });
    for (const [body, param] of [
      [{ mode: 'sandbox' }, 'mode'],
      [{ currency: 'USD' }, 'currency'],
      [{ amount: 0 }, 'amount'],
      [{ amount: 100_000_000 }, 'amount'],
      [{ name: '' }, 'name'],
      [{ description: 'abc' }, 'description'],
      [{ success_url: 'https://evil.example/' }, 'success_url'],
    ] as const) {
      const refused = await t.call('POST', path, { key: shop.secretKey, body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json.error.param).toBe(param);
    }
    const foreign = await t.call('POST', path, { key: other.secretKey, body: { name: 'Mine now' } });
    expect(foreign.status).toBe(404);
    expect((await t.call('GET', path, { key: shop.secretKey })).json.name).toBe('Three books');
  });

  it('lists newest first with cursors, only the own account', async () => {
    const account = await t.newAccount();
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      ids.unshift((await create({ ...valid, amount: i }, account.secretKey)).json.id);
      if (i % 2) clock.advance(1);
    }
    const seen: string[] = [];
    let after = '';
    for (;;) {
      const page = await t.call('GET', `/api/v1/products?limit=2${after && `&starting_after=${after}`}`, {
        key: account.secretKey,
      });
      expect(page.status).toBe(200);
      seen.push(...page.json.data.map((p: { id: string }) => p.id));
      if (!page.json.has_more) break;
      after = page.json.data.at(-1).id;
    }
    expect(new Set(seen)).toEqual(new Set(ids));
    expect(seen).toHaveLength(5);
    const amounts = [];
    for (const id of seen)
      amounts.push((await t.call('GET', `/api/v1/products/${id}`, { key: account.secretKey })).json);
    for (let i = 1; i < amounts.length; i++) expect(amounts[i - 1].created).toBeGreaterThanOrEqual(amounts[i].created);
    const foreignCursor = await t.call('GET', `/api/v1/products?starting_after=${ids[0]}`, { key: shop.secretKey });
    expect(foreignCursor.status).toBe(404);
    expect(foreignCursor.json.error.param).toBe('starting_after');
    for (const limit of ['0', '101']) {
      const res = await t.call('GET', `/api/v1/products?limit=${limit}`, { key: account.secretKey });
      expect(res.status).toBe(400);
      expect(res.json.error.param).toBe('limit');
    }
    expect((await t.call('GET', '/api/v1/products?limit=100', { key: account.secretKey })).json.data).toHaveLength(5);
    expect((await t.call('GET', '/api/v1/products?limit=1', { key: account.secretKey })).json.data).toHaveLength(1);
  });

  it('needs the secret key, never the client key', async () => {
    expect((await t.call('GET', '/api/v1/products', {})).status).toBe(401);
    const pk = await t.call('POST', '/api/v1/products', { key: shop.clientKey, body: valid });
    expect(pk.status).toBe(401);
    expect(pk.json.error.code).toBe('secret_key_required');
  });

  it('replays a create with the same Idempotency-Key instead of making a second product', async () => {
    const headers = { 'Idempotency-Key': 'product-1' };
    const first = await t.call('POST', '/api/v1/products', { key: shop.secretKey, body: valid, headers });
    const again = await t.call('POST', '/api/v1/products', { key: shop.secretKey, body: valid, headers });
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });
});
