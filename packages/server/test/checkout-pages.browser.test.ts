import { describe, expect, it } from 'vitest';
import { startExampleMerchant } from '../../../examples/merchant/server.ts';
import { accountWithOrigins, artifactPath, useBrowserChecks } from './support/browser.ts';
import { PAGE_ENGINES } from './support/engines.ts';
import { createIntent, fillCard, intentNow, openHostPage, results } from './support/widget-pages.ts';

/** Origins, themes, keyboard use and the hosted checkout page, in Debian's chromium. */
describe.each(PAGE_ENGINES)('checkout pages in a browser (%s)', (engine) => {
  const { obolus, host, browser, shop } = useBrowserChecks(engine, { withAccount: 'Demo Store' });

  it('a page on a foreign origin that messages the widget gets nothing back and changes nothing', async () => {
    const mine = await createIntent(obolus, shop);
    const theirs = await createIntent(obolus, shop, { amount: 9999 });
    host.page(
      '/foreign',
      `<!doctype html><script>
window.received = [];
addEventListener('message', (e) => window.received.push({ origin: e.origin, data: JSON.stringify(e.data) }));
const attempt = () => {
  for (let i = 0; i < parent.frames.length; i++) {
    const frame = parent.frames[i];
    if (frame === window) continue;
    for (const message of [{ type: 'obolus:init', client_secret: ${JSON.stringify(theirs.client_secret)} },
        'obolus:init', { type: 'obolus:init' }, { type: 'obolus:init', client_secret: 42 }, null, { type: 'obolus:ready' }]) {
      try { frame.postMessage(message, '*'); } catch {}
    }
  }
  // Posing as the widget towards the host page.
  parent.postMessage({ type: 'obolus:ready' }, '*');
  parent.postMessage({ type: 'obolus:result', success: true, payment_intent: 'pi_fake', status: 'succeeded' }, '*');
  parent.postMessage({ type: 'obolus:resize', height: 5 }, '*');
};
attempt();
setInterval(attempt, 50);
</script>`,
    );
    const foreignFrame = `<iframe src="${host.foreignOrigin}/foreign" title="foreign"></iframe>`;
    const { page, widget } = await openHostPage(
      browser,
      host,
      obolus,
      { pk: shop.clientKey, clientSecret: mine.client_secret, mode: 'sandbox' },
      { extraBody: foreignFrame },
    );
    await expect.poll(() => widget.locator('#amount').textContent()).toBe('$20.00');
    await page.waitForTimeout(400);
    await fillCard(widget, '4242424242424242');
    await widget.getByRole('button', { name: 'Pay $20.00' }).click();
    const paid = await results(page, 1);
    await page.waitForTimeout(400);

    expect(paid).toHaveLength(1);
    expect(paid[0]).toMatchObject({ success: true, payment_intent: mine.id });
    expect(await page.evaluate(() => (window as any).readies)).toBe(1);
    const height = await page.locator('iframe[title="Secure card payment"]').evaluate((f) => f.clientHeight);
    expect(height).toBeGreaterThan(100);
    const foreign = page.frames().find((frame) => frame.url().endsWith('/foreign'));
    expect(await foreign?.evaluate(() => (window as any).received)).toEqual([]);
    expect(await intentNow(obolus, shop, theirs.id)).toMatchObject({
      status: 'requires_payment',
      last_transaction: null,
    });
  });

  it('an account with allowed origins can be framed by them and no one else', async () => {
    const account = await accountWithOrigins(obolus, 'Strict Shop', [host.origin]);
    const intent = await createIntent(obolus, account);
    const spec = { pk: account.clientKey, clientSecret: intent.client_secret, mode: 'sandbox' as const };
    const allowed = await openHostPage(browser, host, obolus, spec);
    await expect.poll(() => allowed.widget.locator('#merchant').textContent()).toBe('Strict Shop');

    const blocked = await openHostPage(browser, host, obolus, spec, { origin: host.foreignOrigin });
    await blocked.page.waitForTimeout(800);
    expect(await blocked.page.evaluate(() => (window as any).readies)).toBe(0);
    const frame = blocked.page.frames().find((f) => f.url().includes('/embed'));
    expect(await frame?.evaluate(() => document.getElementById('pay')).catch(() => null)).toBeFalsy();
  });

  it('has a dark and a light theme', async () => {
    for (const theme of ['dark', 'light'] as const) {
      const intent = await createIntent(obolus, shop);
      const { page, widget } = await openHostPage(browser, host, obolus, {
        pk: shop.clientKey,
        clientSecret: intent.client_secret,
        mode: 'sandbox',
        theme,
      });
      await expect.poll(() => widget.locator('#amount').textContent()).toBe('$20.00');
      expect(await widget.locator('html').getAttribute('data-theme')).toBe(theme);
      // Transparent in both themes: the host page's own background shows through.
      const background = await widget.locator('body').evaluate((b) => getComputedStyle(b).backgroundColor);
      expect(background).toBe('rgba(0, 0, 0, 0)');
      await page.screenshot({ path: artifactPath(`form-${theme}-${engine}.png`) });
    }
  });

  it('takes the intent’s theme when the host names none', async () => {
    const intent = await createIntent(obolus, shop, { theme: 'dark' });
    const { widget } = await openHostPage(browser, host, obolus, {
      pk: shop.clientKey,
      clientSecret: intent.client_secret,
    });
    await expect.poll(() => widget.locator('html').getAttribute('data-theme')).toBe('dark');
  });

  it('works by keyboard alone, with errors beside their fields, in 320 px', async () => {
    const intent = await createIntent(obolus, shop, { amount: 900 });
    const { page, widget } = await openHostPage(
      browser,
      host,
      obolus,
      { pk: shop.clientKey, clientSecret: intent.client_secret, mode: 'sandbox' },
      { width: 320 },
    );
    const pay = widget.getByRole('button', { name: 'Pay $9.00' });
    await expect.poll(() => pay.isEnabled()).toBe(true);
    const focused = () => widget.locator(':focus').getAttribute('id');
    await widget.getByLabel('Card number').focus();
    const order = [await focused()];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      order.push(await focused());
    }
    expect(order).toEqual(['number', 'exp', 'cvc', 'name', 'pay']);

    await page.keyboard.press('Enter');
    await expect.poll(() => focused()).toBe('number');
    expect(await widget.locator('#number-error').textContent()).toBe('Enter your card number.');
    expect(await widget.getByLabel('Card number').getAttribute('aria-invalid')).toBe('true');
    expect(await widget.getByLabel('Card number').getAttribute('aria-describedby')).toBe('number-error');
    expect(await widget.locator('#number-error').getAttribute('aria-live')).toBe('polite');
    expect(await widget.locator('#name-error').textContent()).toBe('Enter the name on your card.');

    await page.keyboard.type('4242424242424241');
    await page.keyboard.press('Tab');
    expect(await widget.locator('#number-error').textContent()).toMatch(/not valid/);
    await page.keyboard.type('0120');
    await page.keyboard.press('Tab');
    expect(await widget.locator('#exp-error').textContent()).toBe('Your card has expired.');

    const fits = await widget.locator('html').evaluate((html) => html.scrollWidth <= html.clientWidth);
    expect(fits).toBe(true);
    const frameWidth = await page.locator('iframe[title="Secure card payment"]').evaluate((f) => f.clientWidth);
    expect(frameWidth).toBeLessThanOrEqual(320);

    await fillCard(widget, '4242424242424242');
    await widget.getByLabel('Name on card').focus();
    await page.keyboard.press('Enter');
    const [result] = await results(page, 1);
    expect(result.success).toBe(true);
    await expect.poll(() => focused()).toBe('done-title');
  });

  it('unmount() removes the widget; an unknown key shows an error page, not a blank frame', async () => {
    const intent = await createIntent(obolus, shop);
    const { page, widget } = await openHostPage(browser, host, obolus, {
      pk: shop.clientKey,
      clientSecret: intent.client_secret,
    });
    await expect.poll(() => widget.locator('#amount').textContent()).toBe('$20.00');
    await page.evaluate(() => (window as any).widget.unmount());
    expect(await page.locator('iframe').count()).toBe(0);

    const unknown = await openHostPage(browser, host, obolus, {
      pk: `pk_${'x'.repeat(24)}`,
      clientSecret: intent.client_secret,
    });
    await expect.poll(() => unknown.widget.locator('h1').textContent()).toBe('This checkout cannot be shown');
    expect(await unknown.widget.locator('main').textContent()).toMatch(/client key/);
  });

  it('a client_secret that is not this account’s ends in a notice and a result, nothing else', async () => {
    const other = await obolus.newAccount('Other Shop');
    const theirs = await createIntent(obolus, other);
    const { page, widget } = await openHostPage(browser, host, obolus, {
      pk: shop.clientKey,
      clientSecret: theirs.client_secret,
    });
    const [result] = await results(page, 1);
    expect(result).toMatchObject({
      success: false,
      payment_intent: null,
      status: null,
      error: { type: 'authentication', code: 'client_secret_invalid' },
    });
    expect(await widget.locator('#notice').isVisible()).toBe(true);
    expect(await widget.locator('#pay-form').isHidden()).toBe(true);
    expect(await widget.locator('#amount').textContent()).toBe('');
  });

  it('opened on its own, the widget says it belongs inside a shop page', async () => {
    const page = await (await browser.context()).newPage();
    await page.goto(`${obolus.url}/embed?pk=${shop.clientKey}`);
    await expect.poll(() => page.locator('#notice-text').textContent()).toMatch(/inside a shop/);
    expect(await page.locator('#number').isDisabled()).toBe(true);
  });

  it('the hosted page sells a product: server-side intent, thank-you, then the merchant’s success_url', async () => {
    const merchant = await accountWithOrigins(obolus, 'Book Shop', [host.origin]);
    host.page('/thanks', '<!doctype html><title>Thanks</title><h1>Order confirmed</h1>');
    const created = await obolus.call('POST', '/api/v1/products', {
      key: merchant.secretKey,
      body: {
        name: 'Collected poems',
        description: 'Hardback, signed',
        amount: 1234,
        currency: 'USD',
        mode: 'sandbox',
        success_url: `${host.origin}/thanks`,
      },
    });
    const product = created.json;
    const page = await (await browser.context()).newPage();
    await page.goto(`${obolus.url}/${product.id}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Collected poems');
    expect(await page.locator('#price').textContent()).toBe('$12.34');
    expect(await page.getByText('Hardback, signed').isVisible()).toBe(true);
    const widget = page.frameLocator('iframe[title="Secure card payment"]');
    await fillCard(widget, '4242424242424242');
    await page.screenshot({ path: artifactPath(`hosted-form-${engine}.png`) });
    await widget.getByRole('button', { name: 'Pay $12.34' }).click();
    await page.getByRole('heading', { name: 'Thank you for your purchase' }).waitFor();
    await page.screenshot({ path: artifactPath(`hosted-thanks-${engine}.png`) });
    await page.waitForURL(`${host.origin}/thanks?payment_intent=*`);

    const intentId = new URL(page.url()).searchParams.get('payment_intent') as string;
    const intent = await intentNow(obolus, merchant, intentId);
    expect(intent).toMatchObject({ status: 'succeeded', amount: 1234, mode: 'sandbox', product: product.id });
    const tx = await obolus.server.services.repos.transactions.find(merchant.id, intent.last_transaction);
    expect(tx?.productId).toBe(product.id);
  });

  it('the hosted page of an unknown or inactive product is a friendly 404', async () => {
    const product = (
      await obolus.call('POST', '/api/v1/products', {
        key: shop.secretKey,
        body: { name: 'Gone', amount: 100, currency: 'USD', active: false },
      })
    ).json;
    const page = await (await browser.context()).newPage();
    for (const id of [product.id, `prod_${'0'.repeat(24)}`]) {
      const response = await page.goto(`${obolus.url}/${id}`);
      expect(response?.status()).toBe(404);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This product is not available');
    }
  });

  it('the example merchant (examples/merchant) takes a payment end to end', async () => {
    const example = await startExampleMerchant({
      obolusUrl: obolus.url,
      secretKey: shop.secretKey,
      clientKey: shop.clientKey,
      port: 0,
    });
    try {
      const page = await (await browser.context()).newPage();
      await page.goto(example.url);
      const widget = page.frameLocator('iframe[title="Secure card payment"]');
      await fillCard(widget, '4242424242424242');
      await widget.getByRole('button', { name: 'Pay $20.00' }).click();
      await expect.poll(() => page.locator('#result').textContent()).toBe('Paid, confirmed by the shop server.');
      const integrity = await page.locator('script[integrity]').getAttribute('integrity');
      expect(integrity).toMatch(/^sha384-/);
    } finally {
      await example.close();
    }
  });
});
