import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Product } from '../../node/src/index.ts';
import {
  CHECKOUT_START_WINDOW_MS,
  CHECKOUT_STARTS_PER_WINDOW,
  startHostedCheckout,
} from '../src/domain/hosted-checkout.ts';
import { createLogger } from '../src/logger.ts';
import { maintainOnce } from '../src/workers/maintenance.ts';
import { ENGINES } from './support/engines.ts';
import { useSecondProcess } from './support/second-process.ts';
import { useTestServer } from './support/use-test-server.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: any;
}

/** POST /prod_…/checkout as a browser at `from` (a loopback source address) would send it. */
function startCheckout(base: string, productId: string, options: { from?: string; cookie?: string } = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const url = new URL(`${base}/${productId}/checkout`);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: options.from ?? '127.0.0.1',
        headers: { 'content-type': 'application/json', ...(options.cookie ? { cookie: options.cookie } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

/** Waits out the end of the current counting window when it is about to end, so a test stays in one. */
async function withinOneWindow(): Promise<void> {
  const left = CHECKOUT_START_WINDOW_MS - (Date.now() % CHECKOUT_START_WINDOW_MS);
  if (left < 10_000) await new Promise((done) => setTimeout(done, left + 50));
}

/**
 * Issue 10, item 2(b): the hosted checkout needs no credential, and each intent has its own
 * failed-attempt cap, so new intents per client address are limited, in every process alike.
 */
describe.each(ENGINES)('intents started by the hosted checkout, per client address (%s)', (engine) => {
  const { t, shop } = useTestServer(engine, { withAccount: true });
  const second = useSecondProcess(t);

  const product = async () =>
    (
      await t.call<Product>('POST', '/api/v1/products', {
        key: shop.secretKey,
        body: { name: 'Tea', amount: 500, currency: 'USD', mode: 'sandbox' },
      })
    ).json.id;

  it(`${CHECKOUT_STARTS_PER_WINDOW} new intents per address and window across processes, then 429; a reload still works`, async () => {
    const [first, other] = [await product(), await product()];
    await withinOneWindow();
    const started: Answer[] = [];
    for (let i = 0; i < CHECKOUT_STARTS_PER_WINDOW; i++) {
      // Alternating processes and products: the count is one per address, kept in the database.
      started.push(await startCheckout(i % 2 ? second.url : t.url, i % 3 ? first : other, { from: '127.0.0.3' }));
    }
    expect(started.map((a) => a.status)).toEqual(Array(CHECKOUT_STARTS_PER_WINDOW).fill(200));
    expect(new Set(started.map((a) => a.json.payment_intent)).size).toBe(CHECKOUT_STARTS_PER_WINDOW);

    for (const base of [t.url, second.url]) {
      const refused = await startCheckout(base, first, { from: '127.0.0.3' });
      expect(refused.status).toBe(429);
      expect(refused.json.error).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('checkouts') });
      expect(refused.headers['retry-after']).toBe('60');
    }
    const intents = await t.call('GET', '/api/v1/payment-intents?limit=100', { key: shop.secretKey });
    expect(intents.json.data).toHaveLength(CHECKOUT_STARTS_PER_WINDOW);

    // The session's open intent is still handed back: a reload creates nothing and is not limited.
    const cookie = String(started[1]?.headers['set-cookie']).split(';')[0] as string;
    const reload = await startCheckout(second.url, first, { from: '127.0.0.3', cookie });
    expect(reload.status).toBe(200);
    expect(reload.json.payment_intent).toBe(started[1]?.json.payment_intent);
    // Another address is not held back by this one.
    expect((await startCheckout(t.url, first, { from: '127.0.0.4' })).status).toBe(200);
  });

  it('an IPv6 client counts per /64: rotating addresses inside one network gets no more intents', async () => {
    // Loopback has one IPv6 address, so the use case is driven directly with the addresses a
    // client holding 2001:db8:7:1::/64 could send from; nothing is sent anywhere.
    const productId = await product();
    const { repos, clock } = t.server.services;
    const deps = {
      products: repos.products,
      accounts: repos.accounts,
      intents: repos.intents,
      clock,
      starts: repos.checkoutStarts,
      processors: t.server.services.processors,
    };
    const start = (clientAddress: string) =>
      startHostedCheckout(deps, {
        productId,
        previousSecret: undefined,
        receiptMs: 0,
        newPurchase: false,
        clientAddress,
      });
    await withinOneWindow();
    for (let i = 1; i <= CHECKOUT_STARTS_PER_WINDOW; i++) {
      expect((await start(`2001:db8:7:1::${i.toString(16)}`))?.kind).toBe('pay');
    }
    await expect(start('2001:db8:7:1:ffff:ffff:ffff:fffe')).rejects.toMatchObject({ code: 'rate_limited' });
    // The next /64 is another client.
    expect((await start('2001:db8:7:2::1'))?.kind).toBe('pay');
  });

  it('maintenance drops the counters of windows that have ended', async () => {
    const starts = t.server.services.repos.checkoutStarts;
    const current = Date.now() - (Date.now() % CHECKOUT_START_WINDOW_MS);
    const ended = current - 2 * CHECKOUT_START_WINDOW_MS;
    expect(await starts.increment('198.51.100.7', ended)).toBe(1);
    expect(await starts.increment('198.51.100.7', current)).toBe(1);
    await maintainOnce(t.server.services, createLogger('silent'));
    expect(await starts.increment('198.51.100.7', ended)).toBe(1);
    expect(await starts.increment('198.51.100.7', current)).toBe(2);
  });
});
