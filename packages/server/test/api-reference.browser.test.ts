import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/domain/errors.ts';
import { useBrowserChecks } from './support/browser.ts';
import { seriousViolations } from './support/dashboard-pages.ts';
import { startTestServer } from './support/server.ts';

const SHOTS = resolve(import.meta.dirname, '../../../test-artifacts/docs');

/** How many operations the committed document names (each route names its own). */
function documentedOperations(): number {
  const document = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../docs/openapi.json'), 'utf8'));
  return Object.values(document.paths as Record<string, object>).flatMap((item) =>
    Object.keys(item).filter((key) => ['get', 'post', 'delete'].includes(key)),
  ).length;
}

/**
 * Text nodes of operation paths and tag descriptions whose lines break between two letters
 * (a word cut in two); a break after '/', '-' or a space is fine.
 */
function cutWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const cut: string[] = [];
    for (const element of document.querySelectorAll(
      '.opblock-summary-path, .opblock-tag small, .opblock-summary-description',
    )) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        const range = document.createRange();
        let lastTop: number | undefined;
        for (let i = 0; i < text.length; i++) {
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const top = range.getBoundingClientRect().top;
          if (lastTop !== undefined && top > lastTop + 2 && /\w/.test(text[i - 1] ?? '') && /\w/.test(text[i] ?? '')) {
            cut.push(`${text.slice(0, i)}|${text.slice(i)}`);
          }
          lastTop = top;
        }
      }
    }
    return cut;
  });
}

/** GET /docs in chromium: the whole reference renders, and nothing is fetched from anywhere else. */
describe('the API reference at /docs', () => {
  const { obolus: t, browser } = useBrowserChecks('sqlite', { server: () => startTestServer('sqlite'), host: false });
  beforeAll(() => {
    mkdirSync(SHOTS, { recursive: true });
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
      expect(operations).toBe(documentedOperations());
      for (const tag of ['Payment intents', 'Transactions', 'Webhook endpoints', 'Events']) {
        await expect(page.getByRole('heading', { name: tag }).first().isVisible()).resolves.toBe(true);
      }
      await page.locator('.opblock-summary', { hasText: 'Retrieve a transaction' }).first().click();
      await page.getByText('The secret key is missing or invalid.').first().waitFor();
      await page.screenshot({
        path: join(SHOTS, `reference-${width}-${dark ? 'dark' : 'light'}.png`),
        fullPage: false,
      });
      expect(await seriousViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      const origins = new Set(requests.map((url) => new URL(url).origin));
      expect([...origins]).toEqual([t.url]);
      expect(requests).toContain(`${t.url}/docs/openapi.json`);
      // This installation's addresses, not the published document's {base_url} and {app_url}.
      const text = await page.locator('#reference').innerText();
      expect(text).not.toMatch(/\{(base|app)_url\}/);
      expect(await page.locator('select#servers').inputValue()).toBe(t.url);
      const errors = page.getByRole('link', { name: 'the error reference' });
      expect(await errors.getAttribute('href')).toBe('/docs/errors');
      // Words are not cut at 375 px: no line of a path or a tag description ends inside a word.
      expect(await cutWords(page)).toEqual([]);
      await page.goto(`${t.url}/docs/errors`);
      await page.getByRole('heading', { name: 'Errors', level: 1 }).waitFor();
      expect(await page.locator('tbody tr').count()).toBe(ERROR_CODES.length);
      await page.screenshot({ path: join(SHOTS, `errors-${width}-${dark ? 'dark' : 'light'}.png`), fullPage: false });
      expect(await seriousViolations(page)).toEqual([]);
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(scrollWidth).toBeLessThanOrEqual(width);
      await context.close();
    },
    60_000,
  );
});
