import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrashPointName } from '../src/crash-points.ts';
import type { StripeDouble } from '../src/dev/stripe-double/server.ts';
import { BATTERY_TIMEOUT_MS, count, reportFigure } from './support/battery.ts';
import { crashRunner, type RunFigures, summary } from './support/crash-run.ts';
import { ENGINES } from './support/engines.ts';
import { WEBHOOKS_BY_HAND } from './support/server.ts';
import { intentsForAttempt, STRIPE_WEBHOOK_SECRET, startTestStripe } from './support/stripe-double.ts';
import { useTestServer } from './support/use-test-server.ts';
import { useReceiver } from './support/webhook-receiver.ts';

/**
 * Crash safety (issue 15, decision 0170): an `obolus serve` process is killed with SIGKILL at a
 * named point (OBOLUS_CRASH_AT, a test-only hook) while shops create, pay and refund; a new
 * process on the same database must then hold every acknowledged intent, attempt and refund
 * once, settle every attempt the dead one left pending, and deliver every event at least once.
 */

const TLS_KEY = new URL('./fixtures/webhook-tls/key.pem', import.meta.url).href;
const TLS_CERT = new URL('./fixtures/webhook-tls/cert.pem', import.meta.url).href;

/** Where each point fires by default: past the first few requests, so that some work was acknowledged. */
const POINTS: { point: CrashPointName; nth: number; sqliteOnly?: boolean }[] = [
  { point: 'after_attempt_recorded', nth: 4 },
  { point: 'after_processor_answered', nth: 4 },
  { point: 'before_response_sent', nth: 15 },
  { point: 'during_group_commit', nth: 12 },
  { point: 'during_writer_commit', nth: 3, sqliteOnly: true },
  { point: 'during_webhook_delivery', nth: 6 },
];

/**
 * The first run fires at `nth`; the long run's others at a random moment of the load, from the
 * second time on (the first response of a process is the harness's /readyz).
 */
async function runs(nth: number, run: (at: number, index: number) => Promise<RunFigures>): Promise<RunFigures[]> {
  const figures: RunFigures[] = [];
  for (let index = 0; index < count(1, 10); index++) {
    const at = index === 0 ? nth : 2 + Math.floor(Math.random() * 3 * nth);
    figures.push(await run(at, index));
  }
  return figures;
}

describe.each(ENGINES)('a server killed at a crash point, then restarted (%s)', (engine) => {
  const { t } = useTestServer(engine, { config: WEBHOOKS_BY_HAND });
  const receiver = useReceiver();
  const crashes = crashRunner(t, receiver);
  afterAll(() => crashes.killAll());

  for (const { point, nth, sqliteOnly } of POINTS) {
    it.skipIf(sqliteOnly && engine !== 'sqlite')(
      `${point}: nothing acknowledged is lost or doubled, nothing stays processing, every event is delivered`,
      async () => {
        const figures = await runs(nth, (at, i) => crashes.run(point, at, `${point}-${i}`));
        reportFigure(`crash at ${point} (${engine}, sandbox)`, summary(figures));
      },
      BATTERY_TIMEOUT_MS,
    );
  }
});

/**
 * Live payments through the Stripe connector and its double: a process killed after Stripe
 * charged and before the outcome was written; the restarted server's reconciler looks the
 * attempt up at Stripe (by its metadata) and records the approval. One client at a time: a
 * second confirm cut between its recorded attempt and its call would never reach Stripe, and
 * such an attempt stays `processing` until flagged for review (decisions 0101, 0170).
 */
describe.each(ENGINES)('a server with the Stripe connector killed after Stripe answered (%s)', (engine) => {
  let double: StripeDouble;
  let crashes: ReturnType<typeof crashRunner>;
  const { t } = useTestServer(engine, { config: WEBHOOKS_BY_HAND });
  // Live endpoints need https: the receiver's certificate is trusted by the processes through Node's own variable.
  const receiver = useReceiver({
    key: readFileSync(new URL(TLS_KEY), 'utf8'),
    cert: readFileSync(new URL(TLS_CERT), 'utf8'),
  });
  beforeAll(async () => {
    double = await startTestStripe();
    crashes = crashRunner(t, receiver, {
      NODE_EXTRA_CA_CERTS: fileURLToPath(new URL(TLS_CERT)),
      OBOLUS_LIVE_CONNECTOR: 'stripe',
      OBOLUS_STRIPE_SECRET_KEY: double.secretKey,
      OBOLUS_STRIPE_WEBHOOK_SECRET: STRIPE_WEBHOOK_SECRET,
      OBOLUS_STRIPE_API_BASE: double.url,
    });
  });
  afterAll(async () => {
    await crashes?.killAll();
    await double?.close();
  });

  it(
    'after_processor_answered: the charge Stripe made is found and recorded once',
    async () => {
      const figures = await runs(4, (at, i) => crashes.run('after_processor_answered', at, `stripe-${i}`, 'live', 1));
      // Nothing charged twice at Stripe: one PaymentIntent per attempt, one refund per payment.
      for (const { shopId } of figures) {
        const attempts = await t.server.services.database.db
          .selectFrom('transactions')
          .select('id')
          .where('account_id', '=', shopId)
          .execute();
        for (const { id } of attempts) expect(intentsForAttempt(double, id).length).toBeLessThanOrEqual(1);
      }
      const refunded = double.refunds.all().map((r) => (r as { payment_intent?: string }).payment_intent);
      expect(refunded.length).toBe(new Set(refunded).size);
      reportFigure(`crash at after_processor_answered (${engine}, Stripe double)`, summary(figures));
    },
    BATTERY_TIMEOUT_MS,
  );
});
