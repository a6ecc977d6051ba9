import { describe, expect, it } from 'vitest';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';

/** JSON text with escapes kept as escapes, so that NUL and lone surrogates reach the server as sent. */
const rawJson = (fields: string) => `{"amount": 1000, "currency": "USD", "mode": "sandbox", ${fields}}`;

describe.each(ENGINES)('text fields refuse control characters and lone surrogates (%s)', (engine) => {
  const { t, shop } = useTestServer(engine, { config: { webhooksPollMs: 0 }, withAccount: true });

  const postRaw = (path: string, rawBody: string) =>
    t.call('POST', path, { key: shop.secretKey, rawBody, headers: { 'content-type': 'application/json' } });
  const createIntent = (fields: string) => postRaw('/api/v1/payment-intents', rawJson(fields));

  it.each([
    ['"reference": "order\\u00001"', 'reference'],
    ['"description": "Mug \\u0007 blue"', 'description'],
    ['"externalid": "x\\u001b[31m"', 'externalid'],
    ['"description": "lone \\ud800 high"', 'description'],
    ['"reference": "lone \\udc00 low"', 'reference'],
    ['"metadata": {"size": "L\\u0000"}', 'metadata[size]'],
    ['"metadata": {"si\\u0000ze": "L"}', 'metadata[si\u0000ze]'],
    ['"metadata": {"note": "\\u007f"}', 'metadata[note]'],
  ])('%s: 400 naming %s, nothing stored', async (fields, param) => {
    const before = await t.call('GET', '/api/v1/payment-intents?limit=100', { key: shop.secretKey });
    const res = await createIntent(fields);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request', code: 'parameter_invalid', param });
    expect(res.json.error.message).toContain('control characters');
    const after = await t.call('GET', '/api/v1/payment-intents?limit=100', { key: shop.secretKey });
    expect(after.json.data).toHaveLength(before.json.data.length);
  });

  it('keeps tabs, line breaks and paired surrogates (emoji) as sent', async () => {
    const res = await createIntent('"description": "Line 1\\nLine 2\\tend \\ud83c\\udf75", "reference": "r\\r\\n1"');
    expect(res.status).toBe(200);
    const read = await t.call('GET', `/api/v1/payment-intents/${res.json.id}`, { key: shop.secretKey });
    expect(read.json.description).toBe('Line 1\nLine 2\tend 🍵');
    expect(read.json.reference).toBe('r\r\n1');
  });

  it('applies to every route: products, webhook endpoints and query strings', async () => {
    const product = await postRaw('/api/v1/products', '{"name": "Mug\\u0000", "amount": 1500, "currency": "USD"}');
    expect(product.status).toBe(400);
    expect(product.json.error.param).toBe('name');
    const endpoint = await postRaw(
      '/api/v1/webhook-endpoints',
      '{"url": "https://shop.example/h", "enabled_events": ["*"], "description": "\\ud800"}',
    );
    expect(endpoint.status).toBe(400);
    expect(endpoint.json.error.param).toBe('description');
    const list = await t.call('GET', '/api/v1/payment-intents?starting_after=pi%00x', { key: shop.secretKey });
    expect(list.status).toBe(400);
    expect(list.json.error.param).toBe('starting_after');
  });
});
