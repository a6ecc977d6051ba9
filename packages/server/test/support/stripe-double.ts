import type { StripeConfig } from '../../src/connectors/stripe/config.ts';
import { StripeProcessor } from '../../src/connectors/stripe/processor.ts';
import { type StripeDouble, startStripeDouble } from '../../src/dev/stripe-double/server.ts';
import { ContractWatch, watchDouble } from './acquirer-contract.ts';

export const STRIPE_WEBHOOK_SECRET = 'whsec_doubleTestSecret0000000000';

/**
 * The Stripe double on a loopback port, and the connector configuration that points at it.
 * Every exchange and event is held against Stripe's API definitions (`contract`).
 */
export async function startTestStripe(
  options: { secretKey?: string } = {},
): Promise<StripeDouble & { config(timeoutMs?: number): StripeConfig; contract: ContractWatch }> {
  const double = watchDouble(await startStripeDouble(options), new ContractWatch('stripe'));
  return Object.assign(double, {
    config: (timeoutMs = 600): StripeConfig => ({
      secretKey: double.secretKey,
      webhookSecret: STRIPE_WEBHOOK_SECRET,
      apiBase: new URL(double.url),
      timeoutMs,
      descriptorPrefix: null,
    }),
  });
}

export const stripeProcessorFor = (config: StripeConfig, warnings?: Record<string, unknown>[]) =>
  new StripeProcessor(config, warnings ? { warn: (fields) => warnings.push(fields) } : undefined);

/** The PaymentIntents the double holds for one of our attempts: more than one would be a double charge. */
export const intentsForAttempt = (double: StripeDouble, attemptId: string) =>
  double.payments.all().filter((p) => (p.pi.metadata as Record<string, string>).obolus_attempt === attemptId);
