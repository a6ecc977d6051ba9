import { afterAll, beforeAll, beforeEach } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { reconcilePendingAttempts } from '../../src/domain/payments/reconcile.ts';
import { paymentDeps } from '../../src/services.ts';
import type { Engine } from '../../src/store/database.ts';
import { startTestServer, type TestAccount, type TestServer } from './server.ts';
import { STRIPE_WEBHOOK_SECRET, startTestStripe } from './stripe-double.ts';
import { card, confirm, createIntent } from './widget-client.ts';

export type TestStripe = Awaited<ReturnType<typeof startTestStripe>>;

/** A server whose live connector is Stripe, pointed at the Stripe double, webhooks wired back to it. */
export async function startLiveStripe(engine: Engine, options: { timeoutMs?: number } = {}) {
  const double = await startTestStripe();
  const clock = new ManualClock();
  const t = await startTestServer(engine, {
    clock,
    config: {
      liveConnector: { name: 'stripe', stripe: double.config(options.timeoutMs ?? 600) },
      reviewUnknownAfterMs: 3_600_000,
    },
  });
  const shop = await t.newAccount();
  const hooksOn = () => {
    double.webhooks.endpoint = { url: `${t.url}/hooks/stripe`, secret: STRIPE_WEBHOOK_SECRET };
  };
  hooksOn();
  return {
    double,
    clock,
    t,
    shop,
    hooksOn,
    hooksOff: () => {
      double.webhooks.endpoint = null;
    },
    liveIntent: (body: Record<string, unknown> = {}) => createIntent(t, shop.secretKey, { mode: 'live', ...body }),
    pay: (secret: string, number: string, over = {}) =>
      confirm(t, shop.clientKey, secret, card(number, over), { mode: 'live' }),
    intentOf: async (id: string) =>
      (await t.call('GET', `/api/v1/payment-intents/${id}`, { key: shop.secretKey })).json,
    record: async (id: string) => (await t.call('GET', `/api/v1/transactions/${id}`, { key: shop.secretKey })).json,
    reconcile: () =>
      reconcilePendingAttempts({
        ...paymentDeps(t.server.services),
        reviewAfterMs: t.server.services.config.reviewUnknownAfterMs,
      }),
    async close() {
      // The double first: its webhook sends under way finish against a server still listening.
      await double.close();
      await t.close();
    },
  };
}

export type LiveStripe = Awaited<ReturnType<typeof startLiveStripe>>;
export type { TestAccount, TestServer };

/** Polls `check` until it holds (webhooks arrive on their own time), at most `ms`. */
export async function eventually<T>(check: () => Promise<T>, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/**
 * Registers the hooks of a suite over one live-Stripe server: started once, webhooks wired
 * and faults cleared before each test. Read `current()` inside tests.
 */
export function useLiveStripe(engine: Engine, options: { timeoutMs?: number } = {}): () => LiveStripe {
  let s: LiveStripe | undefined;
  beforeAll(async () => {
    s = await startLiveStripe(engine, options);
  });
  beforeEach(async () => {
    // Webhooks of the previous test still on their way would land in this one's log.
    await s?.double.webhooks.settled();
    s?.double.reset();
    s?.hooksOn();
  });
  afterAll(() => s?.close());
  return () => {
    if (!s) throw new Error('the live Stripe server is not started');
    return s;
  };
}
