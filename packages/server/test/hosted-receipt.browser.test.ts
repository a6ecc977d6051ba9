import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { accountWithOrigins, artifactPath, startHostServer, useBrowserChecks } from './support/browser.ts';
import { ENGINES, PAGE_ENGINES } from './support/engines.ts';
import type { TestAccount } from './support/server.ts';
import { fillCard } from './support/widget-pages.ts';

/**
 * Issue 10, item 15: the hosted page sold one order twice, because a reload after paying
 * showed a fresh form. Now the browser that paid sees the receipt; buying again is a button.
 */
describe.each(ENGINES)('the hosted checkout page after a payment (%s)', (engine) => {
  let shop: TestAccount;
  const { obolus, browser } = useBrowserChecks(engine, { host: false });
  beforeAll(async () => {
    shop = await obolus.newAccount('Poetry Press');
  });

  const intentCount = async () =>
    (await obolus.call('GET', '/api/v1/payment-intents?limit=100', { key: shop.secretKey })).json.data.length;

  it('a reload shows the receipt, not a form; "Buy again" opens a new purchase', async () => {
    const product = (
      await obolus.call('POST', '/api/v1/products', {
        key: shop.secretKey,
        body: { name: 'Collected poems', amount: 2500, currency: 'USD', mode: 'sandbox' },
      })
    ).json;
    const before = await intentCount();
    const context = await browser.context({ width: 1280 });
    const page = await context.newPage();
    await page.goto(`${obolus.url}/${product.id}`);
    const widget = page.frameLocator('iframe[title="Secure card payment"]');
    await fillCard(widget, '4242424242424242');
    await widget.getByRole('button', { name: 'Pay $25.00' }).click();
    await page.getByRole('heading', { name: 'Thank you for your purchase' }).waitFor();
    expect(await intentCount()).toBe(before + 1);
    const paid = (await obolus.call('GET', '/api/v1/payment-intents?limit=1', { key: shop.secretKey })).json.data[0];
    expect(paid.status).toBe('succeeded');
    // The receipt at once, without a reload; ids labelled as ids.
    const receiptText = new RegExp(
      `Amount\\s+\\$25\\.00\\s+Payment ID\\s+${paid.id}\\s+Transaction ID\\s+${paid.last_transaction}`,
    );
    expect(await page.locator('.receipt').innerText()).toMatch(receiptText);

    for (let i = 0; i < 2; i++) {
      await page.reload();
      await page.getByRole('heading', { name: 'Thank you for your purchase' }).waitFor();
      const receipt = page.locator('.receipt');
      await receipt.waitFor();
      expect(await receipt.innerText()).toMatch(receiptText);
      expect(await page.locator('iframe').count()).toBe(0);
    }
    expect(await intentCount()).toBe(before + 1);

    // How the receipt looks is the page's own, the same over either engine (decision 0189).
    const looks = PAGE_ENGINES.includes(engine)
      ? ([
          [1280, false],
          [1280, true],
          [375, false],
          [375, true],
        ] as const)
      : [];
    for (const [width, dark] of looks) {
      const shot = await (await browser.context({ width, dark })).newPage();
      await shot.context().addCookies(await context.cookies());
      await shot.goto(`${obolus.url}/${product.id}`);
      await shot.locator('.receipt').waitFor();
      // Each id on one line of its own, never cut in two.
      const heights = await shot
        .locator('.receipt dd')
        .evaluateAll((dds) => dds.map((dd) => dd.getBoundingClientRect().height));
      expect(Math.max(...heights), `${width} px`).toBeLessThan((heights[0] ?? 0) * 1.5);
      await shot.screenshot({ path: artifactPath(`hosted-receipt-${dark ? 'dark' : 'light'}-${width}-${engine}.png`) });
    }

    await page.getByRole('button', { name: 'Buy again' }).click();
    await widget.getByRole('button', { name: 'Pay $25.00' }).waitFor();
    expect(await intentCount()).toBe(before + 2);
    expect(await page.locator('.receipt').isVisible()).toBe(false);
  }, 60_000);

  it('the receipt links back to the success_url with the payment', async () => {
    const host = await startHostServer();
    try {
      host.page('/thanks', '<!doctype html><title>Thanks</title><h1>Order confirmed</h1>');
      const merchant = await accountWithOrigins(obolus, 'Book Shop', [host.origin]);
      const product = (
        await obolus.call('POST', '/api/v1/products', {
          key: merchant.secretKey,
          body: {
            name: 'Chapbook',
            amount: 900,
            currency: 'USD',
            mode: 'sandbox',
            success_url: `${host.origin}/thanks`,
          },
        })
      ).json;
      const page = await (await browser.context()).newPage();
      await page.goto(`${obolus.url}/${product.id}`);
      const widget = page.frameLocator('iframe[title="Secure card payment"]');
      await fillCard(widget, '4242424242424242');
      await widget.getByRole('button', { name: 'Pay $9.00' }).click();
      await page.waitForURL(`${host.origin}/thanks?payment_intent=*`);
      const paid = new URL(page.url()).searchParams.get('payment_intent');
      await page.goto(`${obolus.url}/${product.id}`);
      const back = page.getByRole('link', { name: 'Back to the shop' });
      await back.waitFor();
      expect(await back.getAttribute('href')).toBe(`${host.origin}/thanks?payment_intent=${paid}`);
      await back.click();
      await page.getByRole('heading', { name: 'Order confirmed' }).waitFor();
    } finally {
      await host.close();
    }
  });

  it.each(['0', '10080'])('OBOLUS_CHECKOUT_RECEIPT_MINUTES=%s is accepted', (value) => {
    expect(loadConfig({ OBOLUS_CHECKOUT_RECEIPT_MINUTES: value }).checkoutReceiptMs).toBe(Number(value) * 60_000);
  });

  it.each(['10081', '-1', '1.5', 'soon'])('OBOLUS_CHECKOUT_RECEIPT_MINUTES=%s is refused, naming it', (value) => {
    expect(() => loadConfig({ OBOLUS_CHECKOUT_RECEIPT_MINUTES: value })).toThrow(/OBOLUS_CHECKOUT_RECEIPT_MINUTES/);
  });
});
