import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { get, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Product } from '../../node/src/index.ts';
import { HOUR, ManualClock, MINUTE } from '../src/clock.ts';
import { setAccountStatus } from '../src/domain/accounts.ts';
import { accountWithOrigins } from './support/browser.ts';
import { ENGINES } from './support/engines.ts';
import type { TestAccount } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm } from './support/widget-client.ts';

const WIDGET_GZIP_LIMIT = 30 * 1024;

/** The bytes as sent (fetch would undo the gzip we want to measure). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

describe.each(ENGINES)('checkout pages over HTTP (%s)', (engine) => {
  let strict: TestAccount;
  const clock = new ManualClock(Date.now());

  const { t, shop } = useTestServer(engine, { clock, withAccount: 'Demo <Store>' });
  beforeAll(async () => {
    strict = await accountWithOrigins(t, 'Strict Shop', ['https://shop.example', 'http://localhost:3000']);
  });

  const page = (path: string, headers: Record<string, string> = {}) => t.call('GET', path, { headers });

  it('frame-check tells a page, by its own Origin only, whether it may frame the widget', async () => {
    const check = async (pk: string, origin?: string) => {
      const res = await t.call('GET', `/embed/v1/frame-check?pk=${pk}`, { headers: origin ? { origin } : {} });
      expect(res.status).toBe(200);
      return [res.json.framing, res.headers.get('access-control-allow-origin')];
    };
    expect(await check(strict.clientKey, 'https://shop.example')).toEqual(['allowed', 'https://shop.example']);
    expect(await check(strict.clientKey, 'https://evil.example')).toEqual([
      'origin_not_allowed',
      'https://evil.example',
    ]);
    expect(await check(strict.clientKey)).toEqual(['origin_not_allowed', null]);
    expect(await check(shop.clientKey, 'https://evil.example')).toEqual(['allowed', 'https://evil.example']);
    expect(await check(`pk_${'0'.repeat(24)}`, 'https://shop.example')).toEqual([
      'unavailable',
      'https://shop.example',
    ]);
    expect(await check('sk_nope', 'https://shop.example')).toEqual(['unavailable', 'https://shop.example']);
  });

  describe('the widget page /embed', () => {
    it.each([
      ['', 400, 'pk'],
      ['?pk=', 400, 'pk'],
      ['?pk=sk_abcdefghijklmnopqrstuvwx', 400, 'pk'],
      ['?pk=pk_<script>', 400, 'pk'],
      ['?pk=pk_1234567', 400, 'pk'],
      ['?pk=pk_12345678', 404, 'pk'],
      [`?pk=pk_${'a'.repeat(64)}`, 404, 'pk'],
      [`?pk=pk_${'a'.repeat(65)}`, 400, 'pk'],
      [`?pk=pk_${'a'.repeat(24)}`, 404, 'pk'],
      ['?pk=PK&pk=PK', 400, 'pk'],
      ['?pk=PK&mode=test', 400, 'mode'],
      ['?pk=PK&theme=blue', 400, 'theme'],
      ['?pk=PK&origin=javascript:alert(1)', 400, 'origin'],
      ['?pk=PK&origin=https://shop.example/path', 400, 'origin'],
      ['?pk=PK&summary=on', 400, 'summary'],
      ['?pk=PK&appearance=red', 400, 'appearance'],
      ['?pk=PK&appearance=[]', 400, 'appearance'],
      [`?pk=PK&appearance=${encodeURIComponent('{"colorPrimary":"red;}"}')}`, 400, 'appearance'],
      [`?pk=PK&appearance=${encodeURIComponent('{"borderRadius":"25px"}')}`, 400, 'appearance'],
      [`?pk=PK&appearance=${encodeURIComponent('{"fontFamily":"x</style>"}')}`, 400, 'appearance'],
      [`?pk=PK&appearance=${encodeURIComponent('{"spacing":"4px"}')}`, 400, 'appearance'],
    ])('%s answers a clear HTML error page (%i) naming %s', async (query, status, param) => {
      const res = await page(`/embed${query.replaceAll('PK', shop.clientKey)}`);
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toContain('<h1>');
      expect(res.text).toContain(`<code>${param}</code>`);
      expect(res.text).not.toContain('<script>');
    });

    it('an inactive merchant gets a page that says so', async () => {
      const gone = await t.newAccount('Closed Shop');
      await setAccountStatus(t.server.services.repos.accounts, gone.id, 'inactive');
      const res = await page(`/embed?pk=${gone.clientKey}`);
      expect(res.status).toBe(403);
      expect(res.text).toContain('cannot take payments');
    });

    it('serves the card form with strict CSP, autocomplete tokens and no field names', async () => {
      const res = await page(`/embed?pk=${shop.clientKey}&mode=sandbox&theme=dark&origin=https://shop.example`);
      expect(res.status).toBe(200);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
      expect(csp).toContain("form-action 'none'");
      expect(csp).not.toContain('frame-ancestors');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      for (const token of ['cc-number', 'cc-exp', 'cc-csc', 'cc-name'])
        expect(res.text).toContain(`autocomplete="${token}"`);
      expect(res.text).not.toMatch(/<input[^>]* name=/);
      expect(res.text).toContain('data-theme="dark"');
      // Every <script> is external or data: nothing inline can run.
      for (const tag of res.text.match(/<script[^>]*>/g) ?? []) {
        expect(tag).toMatch(/src="\/embed\/assets\/widget-[0-9a-f]{16}\.js"|type="application\/json"/);
      }
      const config = JSON.parse(
        /<script type="application\/json" id="obolus-config">(.*?)<\/script>/s.exec(res.text)![1]!,
      );
      expect(config).toEqual({
        pk: shop.clientKey,
        mode: 'sandbox',
        theme: 'dark',
        origin: 'https://shop.example',
        allowedOrigins: null,
      });
    });

    it('lets only the allowed origins (and our own hosted page) frame an account’s widget', async () => {
      const res = await page(`/embed?pk=${strict.clientKey}`);
      expect(res.headers.get('content-security-policy')).toContain(
        "frame-ancestors 'self' https://shop.example http://localhost:3000",
      );
      expect(res.text).toContain('"allowedOrigins":["https://shop.example","http://localhost:3000"]');
    });

    it('serves the widget script immutable, gzipped under 30 KB, and 304 on its ETag', async () => {
      const html = (await page(`/embed?pk=${shop.clientKey}`)).text;
      const path = /src="(\/embed\/assets\/widget-[0-9a-f]{16}\.js)"/.exec(html)![1]!;
      const response = await rawGet(t.url + path, { 'accept-encoding': 'gzip' });
      expect(response.headers['content-encoding']).toBe('gzip');
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(response.headers['content-type']).toMatch(/^text\/javascript/);
      expect(response.body.length).toBeLessThan(WIDGET_GZIP_LIMIT);
      expect(gunzipSync(response.body).toString()).toContain('obolus:ready');
      const plain = await rawGet(t.url + path, {});
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.toString()).toBe(gunzipSync(response.body).toString());
      const etag = String(response.headers.etag);
      expect((await page(path, { 'if-none-match': etag })).status).toBe(304);
      expect((await page(path.replace(/-[0-9a-f]{16}/, '-0000000000000000'))).status).toBe(404);
      expect((await page('/embed/assets/other-0000000000000000.js')).status).toBe(404);
    });
  });

  describe('the loader /js/v1/obolus.js', () => {
    it('is an ES module for any origin, cached a year, with an ETag', async () => {
      const res = await page('/js/v1/obolus.js');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.text).toMatch(/export\s*\{[^}]*as Obolus/);
      expect(res.text).not.toContain("'*'");
      const etag = res.headers.get('etag')!;
      expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
      // The SRI hash merchants pin is the one the docs print.
      const served = `sha384-${createHash('sha384').update(res.text).digest('base64')}`;
      const documented = readFileSync(new URL('../../../docs/checkout.md', import.meta.url), 'utf8');
      expect(documented.match(/sha384-[A-Za-z0-9+/=]{64}/g)?.every((hash) => hash === served)).toBe(true);
      expect((await page('/js/v1/obolus.js', { 'if-none-match': `W/${etag}` })).status).toBe(304);
    });
  });

  describe('the hosted checkout page', () => {
    const createProduct = async (body: Record<string, unknown> = {}, account = shop) =>
      (
        await t.call<Product>('POST', '/api/v1/products', {
          key: account.secretKey,
          body: { name: 'Poems <b>bold</b>', amount: 1234, currency: 'USD', mode: 'sandbox', ...body },
        })
      ).json;
    const session = (productId: string, cookie?: string, body: unknown = {}) =>
      t.call('POST', `/${productId}/checkout`, { body, headers: cookie ? { cookie } : {} });
    const cookieOf = (res: { headers: Headers }) => (res.headers.get('set-cookie') ?? '').split(';')[0]!;

    it('shows the product escaped, frames nothing but the widget and cannot itself be framed', async () => {
      const product = await createProduct({ description: 'Twelve poems' });
      const res = await page(`/${product.id}`);
      expect(res.status).toBe(200);
      expect(res.text).toContain('Poems &lt;b&gt;bold&lt;/b&gt;');
      expect(res.text).toContain('Demo &lt;Store&gt;');
      expect(res.text).toContain('$12.34');
      expect(res.text).toContain('Twelve poems');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      // Showing the page creates no intent.
      expect((await t.call('GET', '/api/v1/payment-intents', { key: shop.secretKey })).json.data).toHaveLength(0);
    });

    it('is only for prod_ paths: other paths keep their own answers', async () => {
      expect((await page('/prod_')).status).toBe(404);
      expect((await page('/prod_../api')).status).toBe(404);
      const other = await page('/products');
      expect(other.status).toBe(404);
      expect(other.json.error.code).toBe('route_not_found');
      expect((await page('/healthz')).json.status).toBe('ok');
    });

    it('creates the intent server side from the product, and reuses it on reload through a cookie', async () => {
      const product = await createProduct();
      const first = await session(product.id);
      expect(first.status).toBe(200);
      const setCookie = first.headers.get('set-cookie') ?? '';
      expect(setCookie).toMatch(
        new RegExp(
          `^obolus_checkout=pi_[0-9a-f]{24}_secret_\\w+; Path=/${product.id}; Max-Age=5400; HttpOnly; SameSite=Strict$`,
        ),
      );
      const intent = (
        await t.call('GET', `/api/v1/payment-intents/${first.json.payment_intent}`, { key: shop.secretKey })
      ).json;
      expect(intent).toMatchObject({ amount: 1234, mode: 'sandbox', product: product.id, status: 'requires_payment' });
      expect(intent.client_secret).toBe(first.json.client_secret);

      const again = await session(product.id, cookieOf(first));
      expect(again.json).toEqual(first.json);
      // A failed attempt keeps the intent (its failed-attempt count protects against card testing).
      await confirm(t, shop.clientKey, first.json.client_secret, card('4000000000000002'));
      expect((await session(product.id, cookieOf(first))).json).toEqual(first.json);
    });

    it('after a payment the same browser gets the receipt for 30 minutes, not a new intent (issue 10 item 15)', async () => {
      const product = await createProduct();
      const first = await session(product.id);
      const paid = await confirm(t, shop.clientKey, first.json.client_secret, card('4242424242424242'));
      const intentsBefore = (await t.call('GET', '/api/v1/payment-intents', { key: shop.secretKey })).json.data.length;
      const receipt = {
        payment_intent: first.json.payment_intent,
        receipt: {
          amount: 1234,
          currency: 'USD',
          amount_display: '$12.34',
          transaction_id: paid.json.transaction_id,
          paid_at: clock.now(),
        },
      };
      const reload = await session(product.id, cookieOf(first));
      expect(reload.json).toEqual(receipt);
      expect(reload.headers.get('set-cookie')).toBeNull();
      clock.advance(30 * MINUTE - 1);
      expect((await session(product.id, cookieOf(first))).json).toEqual(receipt);
      const intentsAfter = (await t.call('GET', '/api/v1/payment-intents', { key: shop.secretKey })).json.data.length;
      expect(intentsAfter).toBe(intentsBefore);

      // Buying again is an explicit request; so is any visit once the receipt time is over.
      const again = await session(product.id, cookieOf(first), { new_purchase: true });
      expect(again.json.client_secret).toMatch(/_secret_/);
      expect(again.json.payment_intent).not.toBe(first.json.payment_intent);
      clock.advance(1);
      const later = await session(product.id, cookieOf(first));
      expect(later.json.client_secret).toMatch(/_secret_/);
      expect(later.json.payment_intent).not.toBe(first.json.payment_intent);
      // Someone else's browser (no cookie) never sees the receipt.
      expect((await session(product.id)).json).not.toHaveProperty('receipt');
    });

    it('makes an intent that lives as long as the checkout session: an hour, not 7 days as the API does', async () => {
      const product = await createProduct();
      const first = await session(product.id);
      const intent = await t.call('GET', `/api/v1/payment-intents/${first.json.payment_intent}`, {
        key: shop.secretKey,
      });
      expect(intent.json.expires_at - intent.json.created).toBe(HOUR / 1000);
    });

    it('reuses an intent until ten minutes before its one-hour end, not from then on', async () => {
      const product = await createProduct();
      const first = await session(product.id);
      clock.advance(HOUR - 10 * MINUTE - 1);
      expect((await session(product.id, cookieOf(first))).json).toEqual(first.json);
      clock.advance(1);
      expect((await session(product.id, cookieOf(first))).json.payment_intent).not.toBe(first.json.payment_intent);
    });

    it('makes a new intent when the product changed or the cookie is not one of its intents', async () => {
      const product = await createProduct();
      const first = await session(product.id);
      await t.call('POST', `/api/v1/products/${product.id}`, { key: shop.secretKey, body: { amount: 999 } });
      const repriced = await session(product.id, cookieOf(first));
      expect(repriced.json.payment_intent).not.toBe(first.json.payment_intent);
      const intent = await t.call('GET', `/api/v1/payment-intents/${repriced.json.payment_intent}`, {
        key: shop.secretKey,
      });
      expect(intent.json.amount).toBe(999);

      const otherProduct = await createProduct();
      const foreign = await session(otherProduct.id, cookieOf(repriced));
      expect(foreign.json.payment_intent).not.toBe(repriced.json.payment_intent);
      const forged = cookieOf(repriced).replace(/.$/, (c) => (c === 'a' ? 'b' : 'a'));
      expect((await session(product.id, forged)).json.payment_intent).not.toBe(repriced.json.payment_intent);
      expect((await session(product.id, 'obolus_checkout=garbage')).status).toBe(200);
    });

    it('a live product on a server with no live connector starts no intent: 400 live_mode_unavailable', async () => {
      const product = await createProduct({ mode: 'live' });
      const before = (await t.call('GET', '/api/v1/payment-intents?limit=100', { key: shop.secretKey })).json.data;
      const res = await session(product.id);
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'live_mode_unavailable' });
      expect((await t.call('GET', '/api/v1/payment-intents?limit=100', { key: shop.secretKey })).json.data).toEqual(
        before,
      );
    });

    it('takes nothing from the browser: no amount, no mode, JSON only', async () => {
      const product = await createProduct();
      for (const body of [{ amount: 1 }, { mode: 'live' }]) {
        const res = await session(product.id, undefined, body);
        expect(res.status).toBe(400);
        expect(res.json.error.code).toBe('parameter_unknown');
      }
      const form = await t.call('POST', `/${product.id}/checkout`, {
        rawBody: 'amount=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(form.status).toBe(415);
      expect(form.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('an inactive or unknown product, or one of an inactive account, is a 404', async () => {
      const product = await createProduct();
      await t.call('POST', `/api/v1/products/${product.id}`, { key: shop.secretKey, body: { active: false } });
      const closed = await t.newAccount('Closing');
      const theirs = await createProduct({}, closed);
      await setAccountStatus(t.server.services.repos.accounts, closed.id, 'inactive');
      for (const id of [product.id, theirs.id, `prod_${'Z'.repeat(24)}`, 'prod_short']) {
        const html = await page(`/${id}`);
        expect(html.status, id).toBe(404);
        expect(html.text).toContain('This product is not available');
        const res = await session(id);
        expect(res.status).toBe(404);
        expect(res.json.error).toMatchObject({ code: 'resource_missing', param: 'id' });
      }
    });

    it('redirects after payment only to a success_url on an allowed origin, as of now', async () => {
      const product = await createProduct({ success_url: 'https://shop.example/thanks' }, strict);
      const configOf = async () =>
        JSON.parse(/id="checkout-config">(.*?)<\/script>/s.exec((await page(`/${product.id}`)).text)![1]!);
      expect((await configOf()).successUrl).toBe('https://shop.example/thanks');
      await t.server.services.repos.allowedOrigins.set(strict.id, ['http://localhost:3000']);
      expect((await configOf()).successUrl).toBeNull();
    });
  });
});
