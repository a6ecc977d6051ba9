/**
 * Widget benchmark (docs/operations.md targets: JavaScript under 30 KB gzipped, card form
 * interactive in under 300 ms on loopback).
 *
 * - gzipBytes: the widget script as the service sends it with `Accept-Encoding: gzip`.
 * - interactiveMs: median over fresh browser contexts (empty cache, like a first visit) of the
 *   time from the widget frame's navigation start to its `obolus:interactive` mark, set when
 *   the card form accepts input: the widget page, its script, the handshake with the host and
 *   the intent call, all included.
 * - pageInteractiveMs (for information): the same mark from the merchant page's own navigation
 *   start, so it adds the merchant page and the loader, which are not the widget's to control.
 *
 * Run alone with `npx node bench/widget.ts`; `npm run bench` (bench/run.ts) calls benchWidget().
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { loadConfig } from '../packages/server/src/config.ts';
import { createAccount } from '../packages/server/src/domain/accounts.ts';
import { createLogger } from '../packages/server/src/logger.ts';
import { startServer } from '../packages/server/src/server.ts';
import { freePort } from '../packages/server/test/support/free-port.ts';

const RUNS = 9;
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface WidgetBenchResult {
  gzipBytes: number;
  interactiveMs: number;
  pageInteractiveMs: number;
}

function gzipSize(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'accept-encoding': 'gzip' } }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on('end', () =>
        response.headers['content-encoding'] === 'gzip' ? resolve(bytes) : reject(new Error('not gzipped')),
      );
    }).on('error', reject);
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export async function benchWidget(runs = RUNS): Promise<WidgetBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'obolus-bench-widget-'));
  const port = await freePort();
  const obolusUrl = `http://127.0.0.1:${port}`;
  const config = { ...loadConfig({}), port, host: '127.0.0.1', baseUrl: obolusUrl, databaseUrl: join(dir, 'bench.db') };
  const server = await startServer(config, createLogger('silent'));
  const pages = new Map<string, string>();
  const host = createHttpServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(pages.get(request.url ?? '') ?? '');
  });
  await new Promise<void>((done) => host.listen(0, '127.0.0.1', done));
  const hostOrigin = `http://localhost:${(host.address() as { port: number }).port}`;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const { services } = server;
    const { account, secretKey } = await createAccount(services.repos.accounts, services.clock, {
      name: 'Bench Shop',
      email: 'bench@example.com',
    });
    const html = (await (await fetch(`${obolusUrl}/embed?pk=${account.clientKey}`)).text()) as string;
    const script = /src="(\/embed\/assets\/widget-[0-9a-f]{16}\.js)"/.exec(html)?.[1];
    if (!script) throw new Error('widget script not found in /embed');
    const gzipBytes = await gzipSize(obolusUrl + script);

    const widgetTimes: number[] = [];
    const pageTimes: number[] = [];
    for (let run = 0; run <= runs; run++) {
      const intent = (await (
        await fetch(`${obolusUrl}/api/v1/payment-intents`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ amount: 2000, currency: 'USD', mode: 'sandbox' }),
        })
      ).json()) as { client_secret: string };
      pages.set(
        `/run-${run}`,
        `<!doctype html><div id="slot"></div><script type="module">
import { Obolus } from '${obolusUrl}/js/v1/obolus.js';
Obolus('${account.clientKey}').mount('#slot', { clientSecret: '${intent.client_secret}', mode: 'sandbox' });
</script>`,
      );
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${hostOrigin}/run-${run}`);
      const hostOriginMs = await page.evaluate(() => performance.timeOrigin);
      const widget = page.frameLocator('iframe');
      await widget.locator('#pay:enabled').waitFor({ timeout: 10_000 });
      const frame = page.frames().find((f) => f.url().includes('/embed?'));
      const mark = await frame?.evaluate(() => ({
        origin: performance.timeOrigin,
        at: performance.getEntriesByName('obolus:interactive')[0]?.startTime ?? Number.NaN,
      }));
      await context.close();
      // The first run only warms the server (bundles built once per process); it is not counted.
      if (run > 0 && mark) {
        widgetTimes.push(mark.at);
        pageTimes.push(mark.origin + mark.at - hostOriginMs);
      }
    }
    return {
      gzipBytes,
      interactiveMs: Math.round(median(widgetTimes)),
      pageInteractiveMs: Math.round(median(pageTimes)),
    };
  } finally {
    await browser.close();
    await new Promise<void>((done) => host.close(() => done()));
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const result = await benchWidget();
  const kb = (result.gzipBytes / 1024).toFixed(1);
  console.log(
    `widget: ${kb} KB gzipped (target < 30 KB); card form interactive ${result.interactiveMs} ms after the frame ` +
      `started loading (target < 300 ms), ${result.pageInteractiveMs} ms after the merchant page did`,
  );
}
