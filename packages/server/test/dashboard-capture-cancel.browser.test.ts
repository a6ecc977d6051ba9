import { beforeAll, describe, expect, it } from 'vitest';
import { useBrowserChecks } from './support/browser.ts';
import { merchant } from './support/dashboard.ts';
import { capture, seriousViolations, signInBrowser } from './support/dashboard-pages.ts';
import { ENGINES, PAGE_ENGINES } from './support/engines.ts';
import { startTestServer } from './support/server.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

/** Issue 27 item 7: Capture and Cancel in the dashboard, each with its confirmation step; an intent's events as JSON. */
describe.each(ENGINES)('capture and cancel in the dashboard (%s)', (engine) => {
  const { obolus: t, browser } = useBrowserChecks(engine, { server: () => startTestServer(engine), host: false });

  /** A manual intent the shopper has paid: authorized, waiting for its capture. */
  const authorized = async (shop: Awaited<ReturnType<typeof merchant>>, amount: number, reference: string) => {
    const intent = await createIntent(t, shop.secretKey, { amount, capture_method: 'manual', reference });
    const paid = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
    expect(paid.json.status).toBe('requires_capture');
    return intent;
  };
  const statusOf = async (shop: { secretKey: string }, id: string) =>
    (await t.call('GET', `/api/v1/payment-intents/${id}`, { key: shop.secretKey })).json;

  it('captures part of an authorization after confirming, filters by status, and shows the events as JSON', async () => {
    const shop = await merchant(t);
    const intent = await authorized(shop, 4000, 'SHIP-1');
    const { page } = await signInBrowser(browser, t, shop.email, { width: 1280 });
    await page.goto(`${t.url}/dashboard/payments?status=requires_capture`);
    const row = page.getByRole('row').filter({ hasText: 'SHIP-1' });
    expect(await row.textContent()).toContain('Authorized, to capture');
    await row.getByRole('link').click();
    await page.getByRole('heading', { name: 'Payment of $40.00' }).waitFor();
    await page.getByLabel(/Capture amount/).fill('25.00');
    await page.getByRole('button', { name: 'Capture…' }).click();
    await page.getByRole('heading', { name: 'Confirm the capture' }).waitFor();
    expect(await page.locator('main, body').first().textContent()).toContain('the other $15.00 is released');
    // Nothing is captured before the confirmation.
    expect((await statusOf(shop, intent.id)).status).toBe('requires_capture');
    await page.getByRole('button', { name: 'Confirm capture of $25.00' }).click();
    await page.getByText('Payment captured.').waitFor();
    expect((await statusOf(shop, intent.id)).status).toBe('succeeded');
    expect(await page.locator('dl.facts').textContent()).toContain('Settled');
    expect(await page.getByRole('button', { name: 'Capture…' }).count()).toBe(0);
    const summary = page.locator('summary', { hasText: 'payment_intent.succeeded' });
    await summary.click();
    const json = JSON.parse((await summary.locator('xpath=..').locator('pre').textContent()) ?? '');
    expect(json).toMatchObject({
      type: 'payment_intent.succeeded',
      data: { object: { id: intent.id, status: 'succeeded' } },
    });
  });

  it('cancels an authorization after confirming, with a reason; backing out changes nothing', async () => {
    const shop = await merchant(t);
    const intent = await authorized(shop, 1800, 'SHIP-2');
    const { page } = await signInBrowser(browser, t, shop.email, { width: 1280 });
    await page.goto(`${t.url}/dashboard/payments/${intent.id}`);
    await page.getByRole('button', { name: 'Cancel payment…' }).click();
    await page.getByRole('heading', { name: 'Confirm the cancel' }).waitFor();
    await page.getByRole('link', { name: 'Back' }).click();
    await page.getByRole('heading', { name: 'Payment of $18.00' }).waitFor();
    expect((await statusOf(shop, intent.id)).status).toBe('requires_capture');
    await page.getByRole('button', { name: 'Cancel payment…' }).click();
    await page.getByLabel('Reason').selectOption('fraudulent');
    await page.getByRole('button', { name: 'Confirm cancel' }).click();
    await page.getByText('Payment canceled.').waitFor();
    expect(await statusOf(shop, intent.id)).toMatchObject({ status: 'canceled', cancellation_reason: 'fraudulent' });
    expect(await page.locator('dl.facts').textContent()).toContain('(fraudulent)');
    expect(await page.getByRole('button', { name: 'Cancel payment…' }).count()).toBe(0);
    // An unpaid intent is canceled the same way.
    const unpaid = await createIntent(t, shop.secretKey, { amount: 900 });
    await page.goto(`${t.url}/dashboard/payments/${unpaid.id}`);
    await page.getByRole('button', { name: 'Cancel payment…' }).click();
    await page.getByRole('button', { name: 'Confirm cancel' }).click();
    await page.getByText('Payment canceled.').waitFor();
    expect(await statusOf(shop, unpaid.id)).toMatchObject({ status: 'canceled', cancellation_reason: null });
  });
});

describe.each(PAGE_ENGINES)('the capture and cancel pages by themselves (%s)', (engine) => {
  let shop: Awaited<ReturnType<typeof merchant>>;
  let pages: [string, string][];
  const { obolus: t, browser } = useBrowserChecks(engine, { server: () => startTestServer(engine), host: false });
  beforeAll(async () => {
    shop = await merchant(t);
    const intent = await createIntent(t, shop.secretKey, { amount: 4000, capture_method: 'manual' });
    await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
    pages = [
      ['payment-authorized', `/dashboard/payments/${intent.id}`],
      ['capture-confirm', `/dashboard/payments/${intent.id}/capture?amount=25.00`],
      ['cancel-confirm', `/dashboard/payments/${intent.id}/cancel`],
    ];
  });

  it.each([
    ['light', 1280],
    ['dark', 1280],
    ['light', 375],
    ['dark', 375],
  ] as const)(
    'at %s %i px: no serious axe-core violation, fits the width',
    async (theme, width) => {
      const { page } = await signInBrowser(browser, t, shop.email, { width, dark: theme === 'dark' });
      for (const [name, path] of pages) {
        await page.goto(t.url + path);
        if (name === 'payment-authorized') await page.locator('summary').first().click();
        if (width === 1280) expect(await seriousViolations(page), `${name} ${theme}`).toEqual([]);
        await capture(page, `${name}-${theme}-${width}`);
      }
    },
    60_000,
  );
});
