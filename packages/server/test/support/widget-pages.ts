import type { FrameLocator, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { HostServer, TestBrowser } from './browser.ts';
import type { TestAccount, TestServer } from './server.ts';

/** What the tests drive: a merchant page on another origin that mounts the widget with the loader. */

export interface MountSpec {
  pk: string;
  clientSecret: string;
  mode?: 'live' | 'sandbox';
  theme?: 'light' | 'dark';
}

/**
 * A merchant page as the README shows it, plus a log of every message the page receives
 * (to prove nothing card-related or secret ever reaches it).
 */
export function hostPageHtml(obolusUrl: string, spec: MountSpec, extraBody = ''): string {
  const options = {
    clientSecret: spec.clientSecret,
    ...(spec.mode ? { mode: spec.mode } : {}),
    ...(spec.theme ? { theme: spec.theme } : {}),
  };
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop checkout</title></head>
<body style="margin:0"><h1 style="font:16px sans-serif">Shop checkout</h1><div id="slot"></div>${extraBody}
<script>window.results = []; window.readies = 0; window.messages = [];
addEventListener('message', (e) => window.messages.push({ origin: e.origin, data: JSON.stringify(e.data) }));</script>
<script type="module">
import { Obolus } from '${obolusUrl}/js/v1/obolus.js';
window.widget = Obolus(${JSON.stringify(spec.pk)}).mount('#slot', {
  ...${JSON.stringify(options)},
  onReady: () => { window.readies++; },
  onResult: (result) => { window.results.push(result); },
});
</script></body></html>`;
}

let pages = 0;

export interface OpenedWidget {
  page: Page;
  widget: FrameLocator;
  path: string;
}

export async function openHostPage(
  browser: TestBrowser,
  host: HostServer,
  obolus: TestServer,
  spec: MountSpec,
  options: { width?: number; dark?: boolean; extraBody?: string; origin?: string } = {},
): Promise<OpenedWidget> {
  const path = `/checkout-${++pages}`;
  host.page(path, hostPageHtml(obolus.url, spec, options.extraBody));
  const context = await browser.context(options);
  const page = await context.newPage();
  await page.goto(`${options.origin ?? host.origin}${path}`);
  return { page, widget: page.frameLocator('iframe[title="Secure card payment"]'), path };
}

export const futureExpiry = () => `12 / ${String((new Date().getFullYear() + 3) % 100).padStart(2, '0')}`;

export async function fillCard(
  widget: FrameLocator,
  number: string,
  fields: { exp?: string; cvc?: string; name?: string } = {},
): Promise<void> {
  await widget.getByLabel('Card number').fill(number);
  await widget.getByLabel('Expiry date (MM / YY)').fill(fields.exp ?? futureExpiry());
  await widget.getByLabel('Security code').fill(fields.cvc ?? '123');
  await widget.getByLabel('Name on card').fill(fields.name ?? 'Ada Lovelace');
}

export async function results(page: Page, count: number): Promise<any[]> {
  await page.waitForFunction((n) => (window as any).results.length >= n, count, { timeout: 15_000 });
  return page.evaluate(() => (window as any).results);
}

export async function createIntent(
  obolus: TestServer,
  account: TestAccount,
  body: Record<string, unknown> = {},
): Promise<{ id: string; client_secret: string; amount: number }> {
  const res = await obolus.call('POST', '/api/v1/payment-intents', {
    key: account.secretKey,
    body: { amount: 2000, currency: 'USD', mode: 'sandbox', description: 'Two books', ...body },
  });
  expect(res.status).toBe(200);
  return res.json;
}

export async function intentNow(obolus: TestServer, account: TestAccount, id: string): Promise<any> {
  return (await obolus.call('GET', `/api/v1/payment-intents/${id}`, { key: account.secretKey })).json;
}
