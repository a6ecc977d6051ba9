import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseUnavailable, errorBody } from '../src/http/errors.ts';
import { artifactPath, startPublicTestServer, useBrowserChecks } from './support/browser.ts';
import { makeVolume, truncateLog } from './support/volume.ts';
import { createIntent, fillCard, hostPageHtml, intentNow, openHostPage, results } from './support/widget-pages.ts';

/**
 * The shopper's side of a database that is briefly away (decision 0220), in Debian's chromium:
 * the widget says to try again in the shopper's words, nothing is half-written, and the retry
 * pays once. The store is a SQLite file on a small volume of the test's own that fills up.
 */
const volume = makeVolume();
if (!volume) console.warn('widget-database-unavailable: skipped, a loop-mounted volume needs root (mount -o loop)');

const UNAVAILABLE = 'Payments are briefly unavailable. Wait a few seconds and try again.';

describe.skipIf(!volume)('the widget while the database is unavailable', () => {
  const vol = volume as NonNullable<typeof volume>;
  const file = join(vol.mount, 'obolus.db');
  // Registered first, so that it runs last: after the server closed.
  afterAll(() => vol.remove());
  const { obolus, host, browser, shop } = useBrowserChecks('sqlite', {
    server: () => startPublicTestServer('sqlite', { databaseUrl: file }),
    withAccount: 'Demo Store',
  });

  it('a payment refused for a full disk: the shopper is told to try again, and the retry pays once', async () => {
    const intent = await createIntent(obolus, shop);
    const { page, widget } = await openHostPage(browser, host, obolus, {
      pk: shop.clientKey,
      clientSecret: intent.client_secret,
      mode: 'sandbox',
    });
    await fillCard(widget, '4242424242424242');
    truncateLog(file);
    const giveSpaceBack = vol.fill();
    await widget.getByRole('button', { name: 'Pay $20.00' }).click();
    await expect.poll(() => widget.locator('#alert').textContent()).toBe(UNAVAILABLE);
    expect((await results(page, 1))[0]).toMatchObject({
      success: false,
      payment_intent: intent.id,
      error: { type: 'server', code: 'database_unavailable' },
    });
    await page.screenshot({ path: artifactPath('database-unavailable-light.png') });
    expect((await intentNow(obolus, shop, intent.id)).status).toBe('requires_payment');

    giveSpaceBack();
    await widget.getByRole('button', { name: 'Pay $20.00' }).click();
    await widget.getByRole('heading', { name: 'Payment successful' }).waitFor();
    const after = await intentNow(obolus, shop, intent.id);
    expect(after.status).toBe('succeeded');
    const transactions = await obolus.call('GET', `/api/v1/transactions?payment_intent=${intent.id}`, {
      key: shop.secretKey,
    });
    expect(transactions.json.data).toHaveLength(1);
  });

  it('an intent that cannot be read yet: the widget says so, asks again, and shows the form once it can', async () => {
    const intent = await createIntent(obolus, shop, { amount: 1500 });
    const context = await browser.context({ width: 375, dark: true });
    let refused = 0;
    // The service's own 503 for the first read (a read fails only while the database is away).
    await context.route('**/embed/v1/intent', async (route) => {
      if (refused++ >= 1) return route.continue();
      await route.fulfill({
        status: 503,
        contentType: 'application/json',
        headers: { 'retry-after': '2' },
        body: JSON.stringify(errorBody(databaseUnavailable(), 'req_unavailable')),
      });
    });
    host.page(
      '/unavailable',
      hostPageHtml(obolus.url, { pk: shop.clientKey, clientSecret: intent.client_secret, mode: 'sandbox' }),
    );
    const page = await context.newPage();
    await page.goto(`${host.origin}/unavailable`);
    const widget = page.frameLocator('iframe[title="Secure card payment"]');
    await expect
      .poll(() => widget.locator('#notice-text').textContent())
      .toBe('Payments are briefly unavailable. The form opens as soon as they are back.');
    await page.screenshot({ path: artifactPath('database-unavailable-notice-dark-375.png') });
    await expect.poll(() => widget.getByRole('button', { name: 'Pay $15.00' }).isVisible()).toBe(true);
    await fillCard(widget, '4242424242424242');
    await widget.getByRole('button', { name: 'Pay $15.00' }).click();
    await widget.getByRole('heading', { name: 'Payment successful' }).waitFor();
    expect(refused).toBe(2);
  });

  it('the hosted checkout page: a checkout that cannot start says to reload, in the shopper words', async () => {
    const product = await obolus.call('POST', '/api/v1/products', {
      key: shop.secretKey,
      body: { name: 'Tea', amount: 900, currency: 'USD', mode: 'sandbox' },
    });
    const context = await browser.context();
    await context.route(`**/${product.json.id}/checkout`, (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        headers: { 'retry-after': '2' },
        body: JSON.stringify(errorBody(databaseUnavailable(), 'req_unavailable')),
      }),
    );
    const page = await context.newPage();
    await page.goto(`${obolus.url}/${product.json.id}`);
    await expect
      .poll(() => page.locator('#problem').textContent())
      .toBe('Payments are briefly unavailable. Reload this page in a few seconds.');
    await page.screenshot({ path: artifactPath('database-unavailable-hosted.png') });
  });
});
