import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostServer, launchBrowser, startHostServer, type TestBrowser } from './support/browser.ts';
import { merchant, PASSWORD } from './support/dashboard.ts';
import { capture, seriousViolations, signInBrowser } from './support/dashboard-pages.ts';
import { ENGINES, PAGE_ENGINES } from './support/engines.ts';
import { freePort, startTestServer, type TestServer } from './support/server.ts';
import { type Receiver, startReceiver } from './support/webhook-receiver.ts';
import { createIntent, fillCard, openHostPage, results } from './support/widget-pages.ts';

describe.each(ENGINES)('the merchant dashboard in a browser (%s)', (engine) => {
  let t: TestServer;
  let browser: TestBrowser;
  let host: HostServer;
  let receiver: Receiver;
  beforeAll(async () => {
    const port = await freePort();
    t = await startTestServer(engine, {
      config: { port, baseUrl: `http://127.0.0.1:${port}`, webhooksAllowLoopback: true, webhooksPollMs: 200 },
    });
    [browser, host, receiver] = await Promise.all([launchBrowser(), startHostServer(), startReceiver()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await receiver?.close();
    await t?.close();
  });

  it('signs in, sees a widget payment, refunds part of it, adds a webhook endpoint and an origin, rolls the key, signs out', async () => {
    const shop = await merchant(t, { name: 'Books & Co' });
    const context = await browser.context({ width: 1280 });
    const page = await context.newPage();
    await page.goto(`${t.url}/dashboard`);
    await page.getByLabel('Email').fill(shop.email);
    await page.getByLabel('Password').fill('a wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That email and password do not match an account.').waitFor();
    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();

    // A webhook endpoint first, so the payment's events are delivered to it.
    await page.getByRole('link', { name: 'Developer' }).click();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: /Add endpoint/ }).click();
    await expect.poll(() => page.locator('code.secret').textContent()).toMatch(/^whsec_/);

    // A shopper pays through the widget on the merchant's page.
    const intent = await createIntent(t, shop, { amount: 2000, externalid: 'order-77' });
    const opened = await openHostPage(browser, host, t, { pk: shop.clientKey, clientSecret: intent.client_secret });
    await fillCard(opened.widget, '4242424242424242');
    await opened.widget.getByRole('button', { name: 'Pay $20.00' }).click();
    const [paid] = await results(opened.page, 1);
    expect(paid).toMatchObject({ success: true });

    // An intent the merchant's server made but nobody has paid yet is a payment too.
    const unpaid = await createIntent(t, shop, { amount: 3100, reference: 'CART-31' });
    await page.getByRole('link', { name: 'Payments' }).click();
    const unpaidRow = page.getByRole('row').filter({ hasText: '$31.00' });
    expect(await unpaidRow.textContent()).toContain('Requires payment');
    expect(await unpaidRow.textContent()).toContain('CART-31');
    await unpaidRow.getByRole('link').click();
    await page.getByRole('heading', { name: 'Payment of $31.00' }).waitFor();
    expect(await page.locator('dl.facts').textContent()).toContain(unpaid.id);
    expect(await page.getByText('No attempt to pay yet').count()).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Refund…' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Payments' }).click();
    await page.getByLabel('Status').selectOption('requires_payment');
    await page.getByRole('button', { name: 'Filter' }).click();
    // The filter is a GET form: count the rows of the page it loads, not of the one it replaces.
    await page.waitForURL(/[?&]status=requires_payment/);
    expect(await page.getByRole('region', { name: 'Payments' }).getByRole('row').count()).toBe(2);
    await page.getByRole('link', { name: 'Clear' }).click();

    const row = page.getByRole('row').filter({ hasText: '$20.00' });
    await expect.poll(() => row.textContent()).toContain('Settled');
    expect(await row.textContent()).toContain('order-77');
    await row.getByRole('link').click();
    await page.getByRole('heading', { name: 'Payment of $20.00' }).waitFor();
    expect(await page.locator('dl.facts').textContent()).toContain(paid.transaction_id);
    // The delivery attempt of its events shows up once the dispatcher has sent them.
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.getByRole('region', { name: 'Webhook deliveries' }).textContent();
        },
        { timeout: 15_000 },
      )
      .toContain('204');

    // Partial refund, with its confirmation step.
    await page.getByLabel(/Refund amount/).fill('5.00');
    await page.getByRole('button', { name: 'Refund…' }).click();
    await page.getByRole('button', { name: 'Confirm refund of $5.00' }).click();
    await page.getByText('Refund made.').waitFor();
    expect(await page.locator('dl.facts').textContent()).toContain('Partially refunded');
    const tx = await t.call('GET', `/api/v1/transactions/${paid.transaction_id}`, { key: shop.secretKey });
    expect(tx.json.refunds.map((r: { amount: number }) => r.amount)).toEqual([500]);

    // Allowed origin.
    await page.getByRole('link', { name: 'Developer' }).click();
    await page.getByLabel('Origin', { exact: true }).fill('https://shop.example');
    await page.getByRole('button', { name: 'Add origin' }).click();
    await page.getByText('https://shop.example').first().waitFor();
    expect((await t.server.services.repos.accounts.find(shop.id))?.allowedOrigins).toEqual(['https://shop.example']);

    // The endpoint's own page lists its attempts.
    await page.getByRole('link', { name: receiver.url }).click();
    expect(await page.getByRole('region', { name: 'Delivery attempts' }).textContent()).toContain(
      'payment_intent.succeeded',
    );
    await page.getByRole('link', { name: 'Back to Developer' }).click();

    // Roll the secret key with no grace: the old key is refused at once.
    await page.getByLabel('The current key stops working').selectOption('0');
    await page.getByRole('button', { name: 'Roll secret key' }).click();
    const newKey = (await page.locator('code.secret').textContent()) ?? '';
    expect(newKey).toMatch(/^sk_/);
    expect((await t.call('GET', '/api/v1/payment-intents', { key: shop.secretKey })).status).toBe(401);
    expect((await t.call('GET', '/api/v1/payment-intents', { key: newKey })).status).toBe(200);
    // A reload sends the form again: refused, the new key stays the one shown.
    await page.reload();
    await page.getByText('This key was already rolled').waitFor();
    expect((await t.call('GET', '/api/v1/payment-intents', { key: newKey })).status).toBe(200);
    await page.getByRole('link', { name: 'Developer' }).click();
    expect(await page.content()).not.toContain(newKey);
    expect(await page.content()).toContain(`sk_…${newKey.slice(-4)}`);

    // Sign out: the cookie the browser had is refused afterwards.
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'obolus_session', httpOnly: true, sameSite: 'Strict', path: '/dashboard' });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to your dashboard' }).waitFor();
    const replay = await fetch(`${t.url}/dashboard/payments`, {
      headers: { cookie: `obolus_session=${cookie?.value}` },
      redirect: 'manual',
    });
    expect(replay.status).toBe(303);
  }, 60_000);

  // What a page looks like and does in the browser is its HTML, CSS and script, the same over
  // either engine; the pages' data is checked on both in dashboard-pages.test.ts (decision 0189).
  describe.runIf(PAGE_ENGINES.includes(engine))('pages in both themes and widths', () => {
    let shop: Awaited<ReturnType<typeof merchant>>;
    let pages: (readonly [string, string])[];
    beforeAll(async () => {
      shop = await merchant(t, { name: '<script>window.pwned=1</script>' });
      await t.call('POST', '/api/v1/products', {
        key: shop.secretKey,
        body: { name: '<img src=x onerror="window.pwned=2">', amount: 1250, currency: 'USD', mode: 'sandbox' },
      });
      const intent = await createIntent(t, shop, { amount: 4200, metadata: { order: '<b>42</b>' } });
      const opened = await openHostPage(browser, host, t, { pk: shop.clientKey, clientSecret: intent.client_secret });
      await fillCard(opened.widget, '4242424242424242');
      await opened.widget.getByRole('button', { name: 'Pay $42.00' }).click();
      await results(opened.page, 1);
      const unpaid = await createIntent(t, shop, { amount: 990, reference: 'CART-<i>9</i>' });
      const endpoint = await t.call('POST', '/api/v1/webhook-endpoints', {
        key: shop.secretKey,
        body: { url: receiver.url, enabled_events: ['*'], mode: 'sandbox' },
      });
      expect(endpoint.status).toBe(200);
      pages = [
        ['home', '/dashboard'],
        ['payments', '/dashboard/payments'],
        ['payment', `/dashboard/payments/${intent.id}`],
        ['payment-unpaid', `/dashboard/payments/${unpaid.id}`],
        ['refund-confirm', `/dashboard/payments/${intent.id}/refund?amount=10.00`],
        ['products', '/dashboard/products'],
        ['developer', '/dashboard/developer'],
        ['webhook-endpoint', `/dashboard/developer/webhooks/${endpoint.json.id}`],
        ['security-history', '/dashboard/developer/security'],
        ['confirm-password', '/dashboard/confirm-password?back=/dashboard/developer'],
      ];
    }, 60_000);

    // axe-core reads the rendered page, not the viewport: it runs at 1280 px; at 375 px each page must fit.
    it.each([
      ['light', 1280],
      ['dark', 1280],
      ['light', 375],
      ['dark', 375],
    ] as const)(
      'every page at %s %i px: no serious axe-core violation, fits the width; merchant markup is text that runs nothing',
      async (theme, width) => {
        const dark = theme === 'dark';
        const signedOut = await (await browser.context({ width, dark })).newPage();
        await signedOut.goto(`${t.url}/dashboard`);
        if (width === 1280) expect(await seriousViolations(signedOut), `sign-in ${theme}`).toEqual([]);
        await capture(signedOut, `sign-in-${theme}-${width}`);
        const { page } = await signInBrowser(browser, t, shop.email, { width, dark });
        for (const [name, path] of pages) {
          await page.goto(t.url + path);
          if (width === 1280) expect(await seriousViolations(page), `${name} ${theme}`).toEqual([]);
          await capture(page, `${name}-${theme}-${width}`);
          expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
        }
      },
      60_000,
    );

    it("copies a product's hosted checkout link with its Copy link button, and says so", async () => {
      const shop = await merchant(t);
      const product = await t.call('POST', '/api/v1/products', {
        key: shop.secretKey,
        body: { name: 'Green tea', amount: 750, currency: 'USD', mode: 'sandbox' },
      });
      const link = `${t.server.services.config.baseUrl}/${product.json.id}`;
      const { context, page } = await signInBrowser(browser, t, shop.email, { width: 1280 });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
      await page.getByRole('link', { name: 'Products' }).click();
      const field = page.getByRole('textbox', { name: 'Checkout link' });
      expect(await field.inputValue()).toBe(link);
      await page.evaluate(() => navigator.clipboard.writeText('something else'));
      await page.getByRole('button', { name: 'Copy link of Green tea' }).click();
      await expect.poll(() => page.locator('#copy-status').textContent()).toBe('Copied');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
      expect(await seriousViolations(page)).toEqual([]);
      // Its edit page has the same button.
      await page.getByRole('link', { name: 'Green tea' }).click();
      await page.evaluate(() => navigator.clipboard.writeText('something else'));
      await page.getByRole('button', { name: 'Copy link of Green tea' }).click();
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    });

    it('without script the checkout link is still there to select, and no button pretends to copy', async () => {
      const shop = await merchant(t);
      const product = await t.call('POST', '/api/v1/products', {
        key: shop.secretKey,
        body: { name: 'Black tea', amount: 800, currency: 'USD', mode: 'sandbox' },
      });
      const context = await browser.browser.newContext({
        javaScriptEnabled: false,
        viewport: { width: 1280, height: 900 },
      });
      try {
        const page = await context.newPage();
        await page.goto(`${t.url}/dashboard`);
        await page.getByLabel('Email').fill(shop.email);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.goto(`${t.url}/dashboard/products`);
        const field = page.getByRole('textbox', { name: 'Checkout link' });
        expect(await field.inputValue()).toBe(`${t.server.services.config.baseUrl}/${product.json.id}`);
        expect(await field.getAttribute('readonly')).not.toBeNull();
        expect(await page.getByRole('button', { name: /Copy link/ }).count()).toBe(0);
      } finally {
        await context.close();
      }
    });

    it('the theme toggle overrides the system preference', async () => {
      const shop = await merchant(t);
      const { page } = await signInBrowser(browser, t, shop.email, { width: 1280 });
      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const light = await background();
      await page.getByRole('button', { name: 'Theme: system' }).click();
      await page.getByRole('button', { name: 'Theme: dark' }).waitFor();
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
      expect(await background()).not.toBe(light);
      expect(await seriousViolations(page)).toEqual([]);
      // The check itself can fail: an unlabelled field is a critical violation.
      await page.setContent('<!doctype html><html lang="en"><title>x</title><main><input></main></html>');
      expect((await seriousViolations(page)).join()).toContain('label');
    });
  });
});
