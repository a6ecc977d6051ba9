import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { ENGINES } from './support/engines.ts';
import type { TestAccount } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';

describe.each(ENGINES)('webhook endpoints API (%s)', (engine) => {
  let other: TestAccount;
  const clock = new ManualClock(Date.UTC(2026, 10, 1));
  // Loopback stays forbidden here, as in production.
  const { t, shop } = useTestServer(engine, { clock, config: { webhooksPollMs: 0 }, withAccount: true });
  beforeAll(async () => {
    other = await t.newAccount();
  });

  const create = (account: TestAccount, body: Record<string, unknown>, headers?: Record<string, string>) =>
    t.call('POST', '/api/v1/webhook-endpoints', {
      key: account.secretKey,
      body: { url: 'https://shop.example/hooks', enabled_events: ['*'], ...body },
      ...(headers ? { headers } : {}),
    });

  it('creates an endpoint and shows its secret once', async () => {
    const res = await create(shop, { description: 'Orders', enabled_events: ['payment_intent.succeeded'] });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      object: 'webhook_endpoint',
      url: 'https://shop.example/hooks',
      mode: 'live',
      description: 'Orders',
      enabled_events: ['payment_intent.succeeded'],
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      previous_secret_expires_at: null,
      created: Date.UTC(2026, 10, 1) / 1000,
    });
    expect(res.json.id).toMatch(/^we_[0-9A-Za-z]{24}$/);
    expect(res.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(res.json.secret.slice(6), 'base64')).toHaveLength(32);
    const got = await t.call('GET', `/api/v1/webhook-endpoints/${res.json.id}`, { key: shop.secretKey });
    const { secret: _secret, ...withoutSecret } = res.json;
    expect(got.json).toEqual(withoutSecret);
    expect(got.text).not.toContain('whsec_');
  });

  it('normalises the event list: * alone means everything, duplicates go', async () => {
    expect((await create(shop, { enabled_events: ['transaction.created', '*'] })).json.enabled_events).toEqual(['*']);
    const dup = await create(shop, { enabled_events: ['transaction.created', 'transaction.created'] });
    expect(dup.json.enabled_events).toEqual(['transaction.created']);
  });

  it.each([
    [
      '{ enabled_events: [payment_intent.created, payment.done] }',
      { enabled_events: ['payment_intent.created', 'payment.done'] },
      'enabled_events[1]',
      /must be one of/,
    ],
    ['{ enabled_events: [] }', { enabled_events: [] }, 'enabled_events', /fewer than 1/],
    ['{ enabled_events: undefined }', { enabled_events: undefined }, 'enabled_events', /Missing/],
    ['{ url: undefined }', { url: undefined }, 'url', /Missing/],
    ['{ url: http://shop.example/hooks }', { url: 'http://shop.example/hooks' }, 'url', /live endpoint needs an https/],
    ['{ url: https://10.1.2.3/hooks }', { url: 'https://10.1.2.3/hooks' }, 'url', /private/],
    [
      '{ url: http://127.0.0.1:3000/hooks, mode: sandbox }',
      { url: 'http://127.0.0.1:3000/hooks', mode: 'sandbox' },
      'url',
      /loopback/,
    ],
    ['{ url: 2049 characters }', { url: 'https://x.example/'.padEnd(2049, 'a') }, 'url', /1 to 2048 characters/],
    ['{ description: 501 characters }', { description: 'd'.repeat(501) }, 'description', /at most 500/],
    ['{ mode: test }', { mode: 'test' }, 'mode', /live, sandbox/],
    ['{ enabled: yes }', { enabled: 'yes' }, 'enabled', /boolean/],
    ['{ secret: whsec_mine }', { secret: 'whsec_mine' }, 'secret', /unknown parameter/],
  ])('refuses %s naming %s', async (_label, body, param, message) => {
    const res = await create(shop, body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request', param });
    expect(res.json.error.message).toMatch(message);
  });

  it('accepts the limits themselves: a 2048-character url, a 500-character description, http in sandbox', async () => {
    expect((await create(shop, { url: 'https://x.example/'.padEnd(2048, 'a') })).status).toBe(200);
    expect((await create(shop, { description: 'd'.repeat(500) })).status).toBe(200);
    const sandbox = await create(shop, { url: 'http://shop.example/hooks', mode: 'sandbox', enabled: false });
    expect(sandbox.json).toMatchObject({ mode: 'sandbox', enabled: false, disabled_reason: 'requested' });
  });

  it('updates what is sent, clears the description with null, and keeps the mode', async () => {
    const { id } = (await create(shop, { description: 'Before' })).json;
    clock.advance(1000);
    const res = await t.call('POST', `/api/v1/webhook-endpoints/${id}`, {
      key: shop.secretKey,
      body: { url: 'https://shop.example/v2', enabled_events: ['transaction.updated'], description: null },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      url: 'https://shop.example/v2',
      enabled_events: ['transaction.updated'],
      description: null,
      mode: 'live',
    });
    expect(res.json.updated).toBe(res.json.created + 1);
    const mode = await t.call('POST', `/api/v1/webhook-endpoints/${id}`, {
      key: shop.secretKey,
      body: { mode: 'sandbox' },
    });
    expect(mode.json.error).toMatchObject({ code: 'parameter_invalid', param: 'mode' });
    const insecure = await t.call('POST', `/api/v1/webhook-endpoints/${id}`, {
      key: shop.secretKey,
      body: { url: 'http://shop.example/v3' },
    });
    expect(insecure.json.error).toMatchObject({ code: 'parameter_invalid', param: 'url' });
  });

  it('lists newest first with cursors, only the own account', async () => {
    const account = await t.newAccount();
    const made: { id: string; ms: number }[] = [];
    for (let i = 0; i < 5; i++) {
      made.push({ id: (await create(account, {})).json.id, ms: clock.now() });
      if (i % 2 === 0) clock.advance(1); // some share a millisecond: the id orders those
    }
    await create(other, {});
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const qs = `?limit=2${after ? `&starting_after=${after}` : ''}`;
      const page = await t.call('GET', `/api/v1/webhook-endpoints${qs}`, { key: account.secretKey });
      seen.push(...page.json.data.map((e: { id: string }) => e.id));
      after = page.json.has_more ? page.json.data.at(-1).id : undefined;
    } while (after);
    // Newest first; within one millisecond the database's collation orders the ids.
    const msOf = (id: string) => made.find((e) => e.id === id)!.ms;
    expect(seen.map(msOf)).toEqual(made.map((e) => e.ms).sort((x, y) => y - x));
    expect(new Set(seen)).toEqual(new Set(made.map((e) => e.id)));
    expect(seen).toHaveLength(5);
  });

  it('deletes an endpoint; then it is gone', async () => {
    const { id } = (await create(shop, {})).json;
    const res = await t.call('DELETE', `/api/v1/webhook-endpoints/${id}`, { key: shop.secretKey });
    expect(res.json).toEqual({ id, object: 'webhook_endpoint', deleted: true });
    expect((await t.call('GET', `/api/v1/webhook-endpoints/${id}`, { key: shop.secretKey })).status).toBe(404);
    expect((await t.call('DELETE', `/api/v1/webhook-endpoints/${id}`, { key: shop.secretKey })).status).toBe(404);
  });

  it.each([
    [{ grace_period_hours: 0 }, 200],
    [{ grace_period_hours: 168 }, 200],
    [{ grace_period_hours: 169 }, 400],
    [{ grace_period_hours: -1 }, 400],
    [{ grace_period_hours: 1.5 }, 400],
    [{ grace: 1 }, 400],
  ])('secret roll with %j answers %i', async (body, status) => {
    const { id } = (await create(shop, {})).json;
    const res = await t.call('POST', `/api/v1/webhook-endpoints/${id}/secret/roll`, { key: shop.secretKey, body });
    expect(res.status).toBe(status);
    if (status === 400) expect(res.json.error.param).toMatch(/grace/);
  });

  it('replays a create with the same Idempotency-Key instead of making a second endpoint (without its secret)', async () => {
    const account = await t.newAccount();
    const headers = { 'Idempotency-Key': 'endpoint-1' };
    const first = await create(account, {}, headers);
    const again = await create(account, {}, headers);
    // The secret is shown once; a replay is the same endpoint without it (decision 0073).
    expect(again.json).toEqual({ ...first.json, secret: undefined });
    expect(again.text).not.toContain('whsec_');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const list = await t.call('GET', '/api/v1/webhook-endpoints', { key: account.secretKey });
    expect(list.json.data).toHaveLength(1);
  });

  it("another account's endpoint is the same 404 as a missing one, on every route", async () => {
    const foreign = (await create(other, {})).json.id;
    const missing = 'we_000000000000000000000000';
    const routes: [string, string, unknown?][] = [
      ['GET', ''],
      ['POST', '', { description: 'mine now' }],
      ['DELETE', ''],
      ['POST', '/secret/roll', {}],
      ['GET', '/attempts'],
      ['POST', '/resend/evt_x'],
    ];
    for (const [method, suffix, body] of routes) {
      const a = await t.call(method, `/api/v1/webhook-endpoints/${foreign}${suffix}`, { key: shop.secretKey, body });
      const b = await t.call(method, `/api/v1/webhook-endpoints/${missing}${suffix}`, { key: shop.secretKey, body });
      expect([a.status, b.status]).toEqual([404, 404]);
      expect(a.json.error.message.replace(foreign, 'ID')).toBe(b.json.error.message.replace(missing, 'ID'));
      expect(a.json.error.param).toBe(b.json.error.param);
    }
    expect(
      (await t.call('GET', `/api/v1/webhook-endpoints/${foreign}`, { key: other.secretKey })).json.description,
    ).toBe(null);
  });

  it.each([
    ['GET', '/api/v1/webhook-endpoints'],
    ['POST', '/api/v1/webhook-endpoints'],
    ['GET', '/api/v1/webhook-endpoints/we_x'],
    ['DELETE', '/api/v1/webhook-endpoints/we_x'],
    ['GET', '/api/v1/webhook-endpoints/we_x/attempts'],
    ['GET', '/api/v1/events'],
    ['GET', '/api/v1/events/evt_x'],
  ])('%s %s needs the secret key', async (method, path) => {
    const none = await t.call(method, path, {});
    expect(none.status).toBe(401);
    expect(none.json.error).toMatchObject({ type: 'authentication', code: 'api_key_missing' });
    const publishable = await t.call(method, path, { key: shop.clientKey });
    expect(publishable.json.error.code).toBe('secret_key_required');
  });
});
