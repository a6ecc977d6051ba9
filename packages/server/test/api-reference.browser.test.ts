import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../src/http/openapi/operations.ts';
import { launchBrowser, type TestBrowser } from './support/browser.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const SHOTS = resolve(import.meta.dirname, '../../../test-artifacts/docs');

/** GET /docs in chromium: the whole reference renders, and nothing is fetched from anywhere else. */
describe('the API reference at /docs', () => {
  let t: TestServer;
  let browser: TestBrowser;
  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestServer('sqlite'), launchBrowser()]);
    mkdirSync(SHOTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('is served with a strict CSP: scripts and styles from itself only, nothing inline', async () => {
    const res = await t.call('GET', '/docs');
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe|https?:|\*/);
    expect(res.text).not.toMatch(/<script>|<style|style=|https?:\/\//);
    const asset = await t.call('GET', '/docs/assets/swagger-ui-bundle.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await t.call('GET', '/docs/assets/nope.js')).status).toBe(404);
  });

  it.each([
    [1280, false],
    [375, false],
    [1280, true],
    [375, true],
  ])(
    'renders every operation at %i px (dark: %s), with every request to this server only',
    async (width, dark) => {
      const context = await browser.context({ width, dark });
      const page = await context.newPage();
      const requests: string[] = [];
      const problems: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${t.url}/docs`);
      await page.getByText('Create a payment intent').first().waitFor({ timeout: 20_000 });
      const operations = await page.locator('.opblock-summary').count();
      expect(operations).toBe(Object.keys(OPERATIONS).length);
      for (const tag of ['Payment intents', 'Transactions', 'Webhook endpoints', 'Events']) {
        await expect(page.getByRole('heading', { name: tag }).first().isVisible()).resolves.toBe(true);
      }
      await page.locator('.opblock-summary', { hasText: 'Retrieve a transaction' }).first().click();
      await page.getByText('The secret key is missing or invalid.').first().waitFor();
      await page.screenshot({
        path: join(SHOTS, `reference-${width}-${dark ? 'dark' : 'light'}.png`),
        fullPage: false,
      });
      expect(problems).toEqual([]);
      const origins = new Set(requests.map((url) => new URL(url).origin));
      expect([...origins]).toEqual([t.url]);
      expect(requests).toContain(`${t.url}/api/v1/openapi.json`);
      await context.close();
    },
    60_000,
  );
});
