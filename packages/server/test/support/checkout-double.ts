import type { CheckoutConfig } from '../../src/connectors/checkout/config.ts';
import { CheckoutProcessor } from '../../src/connectors/checkout/processor.ts';
import { type CheckoutDouble, startCheckoutDouble } from '../../src/dev/checkout-double/server.ts';
import { ContractWatch, watchDouble } from './acquirer-contract.ts';

export const CHECKOUT_WEBHOOK_SECRET = 'cko-webhook-test-secret-0000';
export const CHECKOUT_CHANNEL = 'pc_abcdefghijklmnopqrstuvwxyz';

/**
 * The Checkout.com double on a loopback port, and the connector configuration that points at it.
 * Every exchange and event is held against Checkout.com's API definitions (`contract`).
 */
export async function startTestCheckout(
  options: { secretKey?: string } = {},
): Promise<CheckoutDouble & { config(timeoutMs?: number): CheckoutConfig; contract: ContractWatch }> {
  const double = watchDouble(await startCheckoutDouble(options), new ContractWatch('checkout'));
  return Object.assign(double, {
    config: (timeoutMs = 600): CheckoutConfig => ({
      secretKey: double.secretKey,
      processingChannelId: CHECKOUT_CHANNEL,
      webhookSecret: CHECKOUT_WEBHOOK_SECRET,
      apiBase: new URL(double.url),
      timeoutMs,
      threeDS: 'attempt',
    }),
  });
}

export const checkoutProcessorFor = (config: CheckoutConfig, warnings?: Record<string, unknown>[]) =>
  new CheckoutProcessor(config, warnings ? { warn: (fields) => warnings.push(fields) } : undefined);

/** The payments the double holds for one of our attempts: more than one would be a double charge. */
export const paymentsForAttempt = (double: CheckoutDouble, attemptId: string) =>
  double.payments.all().filter((p) => p.reference === attemptId);
