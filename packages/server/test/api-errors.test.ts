import { describe, expect, it } from 'vitest';
import { setAccountStatus } from '../src/domain/accounts.ts';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';

const VALID = { amount: 100, currency: 'USD', mode: 'sandbox' };

/** Every error: the §7.2 shape, a request id that matches the header, and never a 500. */
function expectErrorShape(
  res: { status: number; json: any; headers: Headers },
  status: number,
  type: string,
  code: string,
) {
  expect(res.status).toBe(status);
  expect(res.json.error).toMatchObject({ type, code });
  expect(typeof res.json.error.message).toBe('string');
  expect(res.json.error.message.length).toBeGreaterThan(5);
  expect(res.json.error.request_id).toBe(res.headers.get('request-id'));
}

describe.each(ENGINES)('merchant API errors (%s)', (engine) => {
  const { t, shop } = useTestServer(engine, { withAccount: true });

  describe('authentication', () => {
    it('no Authorization header -> 401 api_key_missing', async () => {
      const res = await t.call('POST', '/api/v1/payment-intents', { body: VALID });
      expectErrorShape(res, 401, 'authentication', 'api_key_missing');
    });
    it.each(['Basic abc', 'Bearer', 'Bearer sk_wrong', 'Bearer sk_', `Bearer ${'x'.repeat(5000)}`])(
      '%s -> 401 api_key_invalid',
      async (authorization) => {
        const res = await t.call('POST', '/api/v1/payment-intents', {
          body: VALID,
          headers: { authorization },
        });
        expectErrorShape(res, 401, 'authentication', 'api_key_invalid');
      },
    );
    it('a client key used as a secret key -> 401 secret_key_required', async () => {
      const res = await t.call('POST', '/api/v1/payment-intents', { key: shop.clientKey, body: VALID });
      expectErrorShape(res, 401, 'authentication', 'secret_key_required');
    });
    it('a secret key of an inactive account -> 403, while another account still works', async () => {
      const other = await t.newAccount();
      await setAccountStatus(t.server.services.repos.accounts, other.id, 'inactive');
      const res = await t.call('POST', '/api/v1/payment-intents', { key: other.secretKey, body: VALID });
      expectErrorShape(res, 403, 'authentication', 'account_inactive');
      const list = await t.call('GET', '/api/v1/payment-intents', { key: other.secretKey });
      expectErrorShape(list, 403, 'authentication', 'account_inactive');
      expect((await t.call('POST', '/api/v1/payment-intents', { key: shop.secretKey, body: VALID })).status).toBe(200);
    });
    it('authentication is checked before the body is read', async () => {
      const res = await t.call('POST', '/api/v1/payment-intents', {
        rawBody: '{not json',
        headers: { 'content-type': 'application/json' },
      });
      expectErrorShape(res, 401, 'authentication', 'api_key_missing');
    });
  });

  describe('the request body', () => {
    const post = (rawBody: string, contentType?: string) =>
      t.call('POST', '/api/v1/payment-intents', {
        key: shop.secretKey,
        rawBody,
        headers: contentType ? { 'content-type': contentType } : {},
      });

    it('malformed JSON -> 400 body_invalid', async () => {
      expectErrorShape(await post('{"amount": 1,', 'application/json'), 400, 'invalid_request', 'body_invalid');
    });
    it('empty JSON body -> 400 body_invalid', async () => {
      expectErrorShape(await post('', 'application/json'), 400, 'invalid_request', 'body_invalid');
    });
    it('no body at all -> 400 body_invalid', async () => {
      expectErrorShape(
        await t.call('POST', '/api/v1/payment-intents', { key: shop.secretKey }),
        400,
        'invalid_request',
        'body_invalid',
      );
    });
    it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml'])(
      'Content-Type %s -> 415',
      async (type) => {
        expectErrorShape(await post('amount=1', type), 415, 'invalid_request', 'content_type_unsupported');
      },
    );
    it('application/json with a charset is fine', async () => {
      expect((await post(JSON.stringify(VALID), 'application/json; charset=utf-8')).status).toBe(200);
    });
    it('a body of 64 KB is read; one byte more -> 413', async () => {
      const fill = (n: number) => JSON.stringify({ ...VALID, reference: 'r' }).replace('"r"', `"${'r'.repeat(n)}"`);
      const base = fill(0).length;
      const exact = fill(64 * 1024 - base);
      expect(Buffer.byteLength(exact)).toBe(65536);
      // Read, then refused for the reference's length: proof it got past the size limit.
      const ok = await post(exact, 'application/json');
      expectErrorShape(ok, 400, 'invalid_request', 'parameter_invalid');
      expectErrorShape(
        await post(fill(64 * 1024 - base + 1), 'application/json'),
        413,
        'invalid_request',
        'body_too_large',
      );
    });
    it('a prototype-poisoning body is refused', async () => {
      const res = await post('{"amount":100,"currency":"USD","__proto__":{"admin":true}}', 'application/json');
      expectErrorShape(res, 400, 'invalid_request', 'body_invalid');
    });
  });

  describe('routes and CORS', () => {
    it('an unknown route -> 404 in the error shape', async () => {
      const res = await t.call('GET', '/api/v1/nothing-here', { key: shop.secretKey });
      expectErrorShape(res, 404, 'invalid_request', 'route_not_found');
    });
    it('an absurdly long id is answered in the error shape, never by the router in plain text', async () => {
      const long = await t.call('GET', `/api/v1/payment-intents/${'a'.repeat(300)}`, { key: shop.secretKey });
      expect(long.status).toBe(400);
      expect(long.json.error).toMatchObject({ code: 'parameter_invalid', param: 'id' });
      const huge = await t.call('GET', `/api/v1/payment-intents/${'a'.repeat(3000)}`, { key: shop.secretKey });
      expect(huge.status).toBe(414);
      expect(huge.json.error.type).toBe('invalid_request');
    });
    it('no CORS headers, preflight included', async () => {
      const preflight = await t.call('OPTIONS', '/api/v1/payment-intents', {
        headers: {
          origin: 'https://shop.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
      });
      expect(preflight.status).toBeGreaterThanOrEqual(400);
      const created = await t.call('POST', '/api/v1/payment-intents', {
        key: shop.secretKey,
        body: VALID,
        headers: { origin: 'https://shop.example' },
      });
      expect(created.status).toBe(200);
      for (const res of [preflight, created]) {
        const cors = [...res.headers.keys()].filter((name) => name.startsWith('access-control-'));
        expect(cors).toEqual([]);
      }
    });
    it('responses are not cached', async () => {
      const res = await t.call('POST', '/api/v1/payment-intents', { key: shop.secretKey, body: VALID });
      expect(res.headers.get('cache-control')).toBe('no-store');
    });
  });

  it('an unexpected failure is a 500 with no internals, and is logged', async () => {
    const { repos } = t.server.services;
    const original = repos.intents.insert;
    repos.intents.insert = async () => {
      throw new Error('disk on fire at /var/secret/path');
    };
    try {
      const res = await t.call('POST', '/api/v1/payment-intents', { key: shop.secretKey, body: VALID });
      expectErrorShape(res, 500, 'server', 'internal_error');
      expect(res.text).not.toContain('disk on fire');
      expect(t.logs()).toContain('disk on fire');
    } finally {
      repos.intents.insert = original;
    }
  });
});
