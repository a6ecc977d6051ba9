import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import axe from 'axe-core';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestBrowser } from './browser.ts';
import { PASSWORD } from './dashboard.ts';
import type { TestServer } from './server.ts';

const ARTIFACTS = resolve(import.meta.dirname, '../../../../test-artifacts/dashboard');

export async function signInBrowser(
  browser: TestBrowser,
  t: TestServer,
  email: string,
  options: { width?: number; dark?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.context(options);
  const page = await context.newPage();
  await page.goto(`${t.url}/dashboard`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Home' }).waitFor();
  return { context, page };
}

/** axe-core run inside the page (evaluated over the DevTools protocol, so the page's CSP stays on). */
export async function seriousViolations(page: Page | Frame): Promise<string[]> {
  await page.evaluate(axe.source);
  const result = await page.evaluate(() =>
    (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }),
  );
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** Full-page screenshot into test-artifacts/dashboard/, and the page must not scroll sideways. */
export async function capture(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(scrollWidth, `${name} fits ${width} px`).toBeLessThanOrEqual(width);
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
