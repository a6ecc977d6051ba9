import { describe, expect, it } from 'vitest';
import { setAccountStatus } from '../src/domain/accounts.ts';
import { SIGN_IN_WINDOW_MS } from '../src/domain/dashboard/sign-in-limits.ts';
import { merchant, PASSWORD, postForm, signInHttp } from './support/dashboard.ts';
import { ENGINES } from './support/engines.ts';
import { startTestServer } from './support/server.ts';
import { createSettledTransaction } from './support/transactions.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

describe.each(ENGINES)('dashboard over HTTP (%s)', (engine) => {
  const { t } = useTestServer(engine);

  it('shows a sign-in form with the password manager tokens, and security headers', async () => {
    const res = await fetch(`${t.url}/dashboard`);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('autocomplete="username"');
    expect(page).toContain('autocomplete="current-password"');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    // The one script is a file of the dashboard's own origin: nothing inline, nothing from elsewhere.
    expect(csp).toContain("script-src 'self'");
    expect(page).toMatch(/<script src="\/dashboard\/assets\/copy-link\.js" defer><\/script>/);
    expect(page.match(/<script/g)).toHaveLength(1);
    const script = await fetch(`${t.url}/dashboard/assets/copy-link.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await script.text()).toContain('navigator.clipboard.writeText');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a wrong password and an unknown email with one generic message', async () => {
    const shop = await merchant(t);
    const wrong = await postForm(t.url, '/dashboard/sign-in', { email: shop.email, password: 'not the password!' });
    const unknown = await postForm(t.url, '/dashboard/sign-in', { email: 'nobody@shop.example', password: PASSWORD });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = 'That email and password do not match an account.';
    expect(await wrong.text()).toContain(message);
    expect(await unknown.text()).toContain(message);
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a password over 1024 characters as a failure, and a form over 16 KB with 413', async () => {
    const shop = await merchant(t);
    const long = await postForm(t.url, '/dashboard/sign-in', { email: shop.email, password: 'p'.repeat(1025) });
    expect(long.status).toBe(401);
    const huge = await postForm(t.url, '/dashboard/sign-in', { email: shop.email, password: 'p'.repeat(16 * 1024) });
    expect(huge.status).toBe(413);
    expect(await huge.text()).toContain('The form is too large.');
    const counted = await t.server.services.repos.rateCounters.count(
      'sign_in_email_network',
      `${shop.email} 127.0.0.1`,
      SIGN_IN_WINDOW_MS,
      t.server.services.clock.now(),
    );
    expect(counted).toBe(1);
  });

  it('sets an HttpOnly, SameSite=Strict session cookie scoped to /dashboard, not Secure over http', async () => {
    const shop = await merchant(t);
    const session = await signInHttp(t, shop.email.toUpperCase());
    const flags = session.setCookie.split(';').map((part) => part.trim());
    expect(flags).toContain('HttpOnly');
    expect(flags).toContain('SameSite=Strict');
    expect(flags).toContain('Path=/dashboard');
    expect(flags).not.toContain('Secure');
    expect((await session.get('/dashboard/payments')).status).toBe(200);
  });

  it('a session cookie alone gets 401 from the API', async () => {
    const shop = await merchant(t);
    const session = await signInHttp(t, shop.email);
    for (const path of ['/api/v1/payment-intents', '/api/v1/transactions', '/api/v1/products']) {
      const res = await fetch(t.url + path, { headers: { cookie: session.cookie } });
      expect(res.status, path).toBe(401);
    }
  });

  it('refuses a form without its CSRF token, with another session’s token, or from another origin', async () => {
    const shop = await merchant(t);
    const session = await signInHttp(t, shop.email);
    const other = await signInHttp(t, (await merchant(t)).email);
    const origin = 'https://evil.example';
    const add = { origin: 'https://shop.example' };
    expect((await postForm(t.url, '/dashboard/developer/origins', add, { cookie: session.cookie })).status).toBe(403);
    const foreignToken = { ...add, csrf: other.csrf };
    expect(
      (await postForm(t.url, '/dashboard/developer/origins', foreignToken, { cookie: session.cookie })).status,
    ).toBe(403);
    const withToken = { ...add, csrf: session.csrf };
    expect(
      (await postForm(t.url, '/dashboard/developer/origins', withToken, { cookie: session.cookie, origin })).status,
    ).toBe(403);
    expect(
      (await postForm(t.url, '/dashboard/developer/origins', withToken, { cookie: session.cookie, origin: null }))
        .status,
    ).toBe(403);
    const { allowedOrigins } = (await t.server.services.repos.accounts.find(shop.id)) ?? { allowedOrigins: ['?'] };
    expect(allowedOrigins).toEqual([]);
    const form = await session.form('/dashboard/developer', '/dashboard/developer/origins', add);
    expect((await session.post('/dashboard/developer/origins', form)).status).toBe(303);
    expect((await t.server.services.repos.accounts.find(shop.id))?.allowedOrigins).toEqual(['https://shop.example']);
  });

  it('signing out ends the session: the old cookie is refused', async () => {
    const shop = await merchant(t);
    const session = await signInHttp(t, shop.email);
    const out = await session.post('/dashboard/sign-out');
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    const after = await session.get('/dashboard/payments');
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/dashboard');
    expect((await session.post('/dashboard/developer/origins', { origin: 'https://a.example' })).status).toBe(401);
  });

  it('renders merchant text (product name, metadata, reference) as text', async () => {
    const shop = await merchant(t, { name: '<img src=x onerror=alert(1)>' });
    const markup = '<script>window.pwned=1</script>';
    await t.call('POST', '/api/v1/products', {
      key: shop.secretKey,
      body: { name: markup, amount: 500, currency: 'USD', mode: 'sandbox' },
    });
    const intent = await createIntent(t, shop.secretKey, {
      reference: '"><b>ref</b>',
      metadata: { '<i>key</i>': '<svg onload=alert(1)>' },
    });
    expect((await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'))).status).toBe(200);
    const session = await signInHttp(t, shop.email);
    const products = await (await session.get('/dashboard/products')).text();
    expect(products).toContain('&lt;script&gt;window.pwned=1&lt;/script&gt;');
    expect(products).toContain('Obolus · &lt;img src=x onerror=alert(1)&gt;');
    expect(products).not.toContain(markup);
    const list = await (await session.get('/dashboard/payments')).text();
    const id = /href="\/dashboard\/payments\/([0-9a-f]{24})"/.exec(list)?.[1];
    const detail = await (await session.get(`/dashboard/payments/${id}`)).text();
    expect(detail).toContain('&quot;&gt;&lt;b&gt;ref&lt;/b&gt;');
    expect(detail).toContain('&lt;i&gt;key&lt;/i&gt;');
    expect(detail).toContain('&lt;svg onload=alert(1)&gt;');
    expect(detail).not.toMatch(/<svg onload|<b>ref|<i>key/);
  });

  it('an inactive account sees a banner and cannot refund, chargeback or roll its key', async () => {
    const shop = await merchant(t);
    const { id, intentId } = await createSettledTransaction(t, shop);
    // Through the serving process's credentials, so its API refuses at once (another process's
    // change reaches it within ACCOUNT_CACHE_TTL_MS: credential-cache.test.ts).
    await setAccountStatus(t.server.services.credentials, shop.id, 'inactive');
    const session = await signInHttp(t, shop.email);
    expect(await (await session.get('/dashboard')).text()).toContain('This account is inactive.');
    const refundForm = await session.form(
      `/dashboard/payments/${id}/refund?amount=5.00`,
      `/dashboard/payments/${intentId}/refund`,
    );
    const productForm = await session.form('/dashboard/products', '/dashboard/products', {
      name: 'Tea',
      amount: '5.00',
      mode: 'sandbox',
    });
    for (const [path, fields] of [
      [`/dashboard/payments/${intentId}/refund`, refundForm],
      [`/dashboard/payments/${id}/chargeback`, {}],
      ['/dashboard/developer/roll', { grace: '0' }],
      ['/dashboard/products', productForm],
    ] as const) {
      const res = await session.post(path, fields);
      expect(res.status, path).toBe(403);
      expect(await res.text()).toContain('This account is inactive');
    }
    const tx = await t.call('GET', `/api/v1/transactions/${id}`, { key: shop.secretKey });
    expect(tx.status).toBe(403);
    const stored = await t.server.services.repos.transactions.find(shop.id as never, id);
    expect(stored?.refundedAmount).toBe(0);
    expect(stored?.chargeback).toBe(false);
    expect(await t.server.services.repos.products.list(shop.id as never, 10)).toMatchObject({ data: [] });
  });

  it('refunds part of a payment after a confirmation step, and refuses more than is left', async () => {
    const shop = await merchant(t);
    const { id, intentId } = await createSettledTransaction(t, shop, { amount: 2000 });
    const session = await signInHttp(t, shop.email);
    const confirmPage = await (await session.get(`/dashboard/payments/${intentId}/refund?amount=5.25`)).text();
    expect(confirmPage).toContain('Confirm refund of $5.25');
    expect((await t.server.services.repos.transactions.find(shop.id as never, id))?.refundedAmount).toBe(0);
    const action = `/dashboard/payments/${intentId}/refund`;
    const confirmed = await session.post(action, await session.form(`${action}?amount=5.25`, action));
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe(`/dashboard/payments/${intentId}?done=refund`);
    expect((await t.server.services.repos.transactions.find(shop.id as never, id))?.refundedAmount).toBe(525);
    const tooMuch = await session.post(action, await session.form(`${action}?amount=14.76`, action));
    expect(tooMuch.status).toBe(400);
    const bad = await session.get(`/dashboard/payments/${id}/refund?amount=1e3`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('amount must be an amount like 12.50.');
  });

  it("another account's payment is not found", async () => {
    const shop = await merchant(t);
    const { id, intentId } = await createSettledTransaction(t, shop);
    const other = await signInHttp(t, (await merchant(t)).email);
    expect((await other.get(`/dashboard/payments/${id}`)).status).toBe(404);
    expect((await other.get(`/dashboard/payments/${intentId}`)).status).toBe(404);
    const once = 'o'.repeat(24);
    expect((await other.post(`/dashboard/payments/${id}/refund`, { amount: '100', once })).status).toBe(404);
  });
});

describe.each(ENGINES)('dashboard sessions and the https cookie (%s)', (engine) => {
  it('marks the cookie Secure when the app URL is https', async () => {
    const t = await startTestServer(engine, { config: { appUrl: 'https://pay.example' } });
    try {
      const shop = await merchant(t);
      const res = await postForm(t.url, '/dashboard/sign-in', { email: shop.email, password: PASSWORD });
      expect(res.status).toBe(303);
      expect(res.headers.get('set-cookie')).toMatch(/; Secure$/);
    } finally {
      await t.close();
    }
  });
});
