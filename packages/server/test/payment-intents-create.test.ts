import { describe, expect, it } from 'vitest';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';

/** Metadata whose compact JSON is exactly `bytes` long (UTF-8). */
function metadataOfBytes(bytes: number): Record<string, string> {
  const overhead = JSON.stringify({ k: '' }).length;
  return { k: 'x'.repeat(bytes - overhead) };
}

describe.each(ENGINES)('POST /api/v1/payment-intents (%s)', (engine) => {
  const { t, shop } = useTestServer(engine, { withAccount: true });
  /** Sandbox unless the body says: this server has no live connector. */
  const create = (body: unknown, headers?: Record<string, string>) =>
    t.call('POST', '/api/v1/payment-intents', {
      key: shop.secretKey,
      body: body && typeof body === 'object' && !('mode' in body) ? { ...body, mode: 'sandbox' } : body,
      ...(headers ? { headers } : {}),
    });

  it('creates an intent with the spec response fields', async () => {
    const res = await create({ amount: 2000, currency: 'USD' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      amount: 2000,
      currency: 'USD',
      status: 'requires_payment',
      mode: 'sandbox',
    });
    expect(res.json.id).toMatch(/^[0-9a-f]{24}$/);
    expect(res.json.client_secret).toMatch(new RegExp(`^pi_${res.json.id}_secret_[0-9A-Za-z]{24,}$`));
    expect(res.headers.get('request-id')).toMatch(/^req_/);
  });

  it.each([
    ['without a mode (live is the default)', {}],
    ['with mode live', { mode: 'live' }],
  ])(
    'refuses a live intent %s when no live connector is configured: 400, naming OBOLUS_LIVE_CONNECTOR',
    async (_, mode) => {
      const before = await t.call('GET', '/api/v1/payment-intents?limit=100', { key: shop.secretKey });
      const res = await t.call('POST', '/api/v1/payment-intents', {
        key: shop.secretKey,
        body: { amount: 2000, currency: 'USD', ...mode },
      });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ type: 'invalid_request', code: 'live_mode_unavailable', param: 'mode' });
      expect(res.json.error.message).toContain('OBOLUS_LIVE_CONNECTOR');
      const after = await t.call('GET', '/api/v1/payment-intents?limit=100', { key: shop.secretKey });
      expect(after.json.data).toEqual(before.json.data);
    },
  );

  it('creates a sandbox intent and echoes every optional field', async () => {
    const body = {
      amount: 1,
      currency: 'USD',
      mode: 'sandbox',
      reference: 'order-1',
      externalid: 'ext-1',
      descriptor: 'SHOP*ORDER',
      description: 'Two books',
      theme: 'dark',
      metadata: { order: '1', note: 'ünïcode' },
    };
    const res = await create(body);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      ...body,
      status: 'requires_payment',
      object: 'payment_intent',
      product: null,
    });
    const again = await t.call('GET', `/api/v1/payment-intents/${res.json.id}`, { key: shop.secretKey });
    expect(again.json).toEqual(res.json);
  });

  it('stores lowercase usd as USD', async () => {
    const res = await create({ amount: 500, currency: 'usd' });
    expect(res.status).toBe(200);
    expect(res.json.currency).toBe('USD');
  });

  it.each([
    [1, 200],
    [99_999_999, 200],
    [0, 400],
    [100_000_000, 400],
    [-1, 400],
    [10.5, 400],
    ['100', 400],
    [null, 400],
    [true, 400],
  ])('amount %j -> %i', async (amount, status) => {
    const res = await create({ amount, currency: 'USD' });
    expect(res.status).toBe(status);
    if (status === 400) {
      expect(res.json.error).toMatchObject({
        type: 'invalid_request',
        code: 'parameter_invalid',
        param: 'amount',
      });
    } else {
      expect(res.json.amount).toBe(amount);
    }
  });

  it.each(['EUR', 'US', '', 'USDX', 5])('currency %j is refused', async (currency) => {
    const res = await create({ amount: 100, currency });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'currency' });
  });

  it.each(['amount', 'currency'])('%s is required', async (field) => {
    const body: Record<string, unknown> = { amount: 100, currency: 'USD' };
    delete body[field];
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({
      type: 'invalid_request',
      code: 'parameter_missing',
      param: field,
    });
    expect(res.json.error.message).toContain(field);
  });

  describe.each(['reference', 'externalid'])('%s (up to 200 characters)', (field) => {
    it('accepts 200 characters, also when they are not ASCII', async () => {
      expect((await create({ amount: 100, currency: 'USD', [field]: 'r'.repeat(200) })).status).toBe(200);
      const emoji = `${'€'.repeat(199)}😀`; // 200 characters, more UTF-16 units and bytes
      expect((await create({ amount: 100, currency: 'USD', [field]: emoji })).status).toBe(200);
    });
    it('refuses 201 characters', async () => {
      const res = await create({ amount: 100, currency: 'USD', [field]: 'r'.repeat(201) });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: field });
    });
    it('refuses a number', async () => {
      const res = await create({ amount: 100, currency: 'USD', [field]: 12 });
      expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: field });
    });
  });

  describe.each(['descriptor', 'description'])('%s (5 to 100 characters)', (field) => {
    it.each([
      [4, 400],
      [5, 200],
      [100, 200],
      [101, 400],
    ])('%i characters -> %i', async (length, status) => {
      const res = await create({ amount: 100, currency: 'USD', [field]: 'd'.repeat(length) });
      expect(res.status).toBe(status);
      if (status === 400) expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: field });
    });
  });

  describe('metadata (flat, string values, at most 4096 bytes of UTF-8 JSON)', () => {
    it('accepts exactly 4096 bytes', async () => {
      const metadata = metadataOfBytes(4096);
      expect(Buffer.byteLength(JSON.stringify(metadata))).toBe(4096);
      const res = await create({ amount: 100, currency: 'USD', metadata });
      expect(res.status).toBe(200);
      expect(res.json.metadata).toEqual(metadata);
    });
    it('refuses 4097 bytes', async () => {
      const res = await create({ amount: 100, currency: 'USD', metadata: metadataOfBytes(4097) });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'metadata' });
    });
    it('counts bytes, not characters', async () => {
      // 2,000 two-byte characters: under 4 K characters but over 4 KB.
      const res = await create({ amount: 100, currency: 'USD', metadata: { k: 'é'.repeat(2100) } });
      expect(res.status).toBe(400);
    });
    it.each([
      [{ nested: { a: '1' } }, 'metadata[nested]'],
      [{ n: 1 }, 'metadata[n]'],
      [{ 'line\nbreak': 2 }, 'metadata[line\nbreak]'],
      [['a'], 'metadata'],
      ['text', 'metadata'],
    ])('refuses %j', async (metadata, param) => {
      const res = await create({ amount: 100, currency: 'USD', metadata });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param });
    });
  });

  it.each([
    ['theme', 'blue'],
    ['mode', 'test'],
    ['mode', 'LIVE'],
  ])('%s %j is refused naming the allowed values', async (field, value) => {
    const res = await create({ amount: 100, currency: 'USD', [field]: value });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: field });
    expect(res.json.error.message).toMatch(/one of/);
  });

  it('refuses an unknown field, naming it', async () => {
    const res = await create({ amount: 100, currency: 'USD', amount_major: 1 });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_unknown', param: 'amount_major' });
  });

  it.each([[[]], [null], ['amount=1'], [42]])('refuses a body that is not an object: %j', async (body) => {
    const res = await t.call('POST', '/api/v1/payment-intents', {
      key: shop.secretKey,
      rawBody: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request', code: 'body_invalid' });
  });
});
