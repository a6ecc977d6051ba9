import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import type { LiveConnectorConfig } from '../../src/connectors/live-config.ts';
import type { WebhookSender } from '../../src/dev/stripe-double/webhooks.ts';
import { followUpAttempts } from '../../src/domain/payments/follow-ups.ts';
import { reconcilePendingAttempts } from '../../src/domain/payments/reconcile.ts';
import { paymentDeps } from '../../src/services.ts';
import type { Engine } from '../../src/store/database.ts';
import type { ContractWatch } from './acquirer-contract.ts';
import { CHECKOUT_WEBHOOK_SECRET, startTestCheckout } from './checkout-double.ts';
import { startTestServer, type TestAccount, type TestServer } from './server.ts';
import { STRIPE_WEBHOOK_SECRET, startTestStripe } from './stripe-double.ts';
import { card, confirm, createIntent } from './widget-client.ts';

export type TestStripe = Awaited<ReturnType<typeof startTestStripe>>;

/**
 * The connector's deadline in these suites: long enough that an answer the double gives at once
 * is never late on a loaded 2-core machine (600 ms was: an approval became an unknown outcome).
 */
export const CONNECTOR_DEADLINE_MS = 3000;

/**
 * A lost answer: the call is done and kept at the acquirer, its answer held back until the
 * connector has given up and hung up (the Stripe double stops waiting then), never by a race of
 * two timers. A minute is past any test's timeout: a connector that never gave up fails the test.
 */
export const LOST_ANSWER = { fault: 'delay_after_commit', delayMs: 60_000 } as const;

/**
 * A lost answer that costs no deadline: the call is done and kept, the connection dropped
 * before the answer. For tests about what follows a lost answer (notices, the reconciler) rather
 * than about the connector's deadline; each held LOST_ANSWER waits out the deadline twice.
 */
export const DROPPED_ANSWER = { fault: 'drop_after_commit' } as const;

/** A server whose live connector is Stripe, pointed at the Stripe double, webhooks wired back to it. */
export async function startLiveStripe(engine: Engine, options: { timeoutMs?: number } = {}) {
  const double = await startTestStripe();
  const connector = { name: 'stripe', stripe: double.config(options.timeoutMs ?? CONNECTOR_DEADLINE_MS) } as const;
  return startLive(engine, double, connector, { path: '/hooks/stripe', secret: STRIPE_WEBHOOK_SECRET });
}

/** The same over the Checkout.com double (webhooks at /hooks/checkout-com). */
export async function startLiveCheckout(engine: Engine, options: { timeoutMs?: number } = {}) {
  const double = await startTestCheckout();
  const connector = { name: 'checkout', checkout: double.config(options.timeoutMs ?? CONNECTOR_DEADLINE_MS) } as const;
  return startLive(engine, double, connector, { path: '/hooks/checkout-com', secret: CHECKOUT_WEBHOOK_SECRET });
}

interface AcquirerDouble {
  webhooks: WebhookSender;
  contract: ContractWatch;
  reset(): void;
  close(): Promise<void>;
}

async function startLive<D extends AcquirerDouble>(
  engine: Engine,
  double: D,
  liveConnector: LiveConnectorConfig,
  hook: { path: string; secret: string },
) {
  const clock = new ManualClock();
  const t = await startTestServer(engine, { clock, config: { liveConnector, reviewUnknownAfterMs: 3_600_000 } });
  const shop = await t.newAccount();
  const hooksOn = () => {
    double.webhooks.endpoint = { url: `${t.url}${hook.path}`, secret: hook.secret };
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
    /** The reconciler's follow-ups: payments finished attempts must not keep, given back. */
    followUp: () => followUpAttempts(paymentDeps(t.server.services)),
    async close() {
      // The double first: its webhook sends under way finish against a server still listening.
      await double.close();
      await t.close();
    },
  };
}

export type LiveStripe = Awaited<ReturnType<typeof startLiveStripe>>;
export type LiveCheckout = Awaited<ReturnType<typeof startLiveCheckout>>;
export type { TestAccount, TestServer };

/**
 * Polls `check` until it holds (webhooks arrive on their own time), at most `ms`: as long as
 * expect.poll waits (vitest.config.ts), since a loaded CI machine is slow.
 */
export async function eventually<T>(check: () => Promise<T>, ms = 10_000): Promise<T> {
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
  return useLive(() => startLiveStripe(engine, options));
}

export function useLiveCheckout(engine: Engine, options: { timeoutMs?: number } = {}): () => LiveCheckout {
  return useLive(() => startLiveCheckout(engine, options));
}

function useLive<S extends { double: AcquirerDouble; hooksOn(): void; close(): Promise<void> }>(
  start: () => Promise<S>,
): () => S {
  let s: S | undefined;
  beforeAll(async () => {
    s = await start();
  });
  beforeEach(async () => {
    // Webhooks of the previous test still on their way would land in this one's log.
    await s?.double.webhooks.settled();
    s?.double.reset();
    s?.hooksOn();
  });
  // Every request the connector sent, every answer and event the double gave, against the acquirer's definitions.
  afterEach(() => s?.double.contract.assertClean());
  afterAll(() => s?.close());
  return () => {
    if (!s) throw new Error('the live server is not started');
    return s;
  };
}
