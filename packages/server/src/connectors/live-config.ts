import { type CheckoutConfig, parseCheckoutConfig } from './checkout/config.ts';
import { parseStripeConfig, type StripeConfig } from './stripe/config.ts';

/**
 * Which live connector the operator chose, with its own configuration. Each connector
 * parses its own OBOLUS_<NAME>_* variables; errors name the variable and never echo a secret.
 */
export type LiveConnectorConfig =
  | { name: 'stripe'; stripe: StripeConfig }
  | { name: 'checkout'; checkout: CheckoutConfig };

export const LIVE_CONNECTORS = ['stripe', 'checkout'] as const;

/**
 * Reads OBOLUS_LIVE_CONNECTOR, or infers it from the one connector whose variables are set.
 * Nothing set: no live connector, and live payments are refused (never simulated).
 */
export function parseLiveConnectorConfig(env: NodeJS.ProcessEnv): LiveConnectorConfig | null {
  const name = env.OBOLUS_LIVE_CONNECTOR || inferred(env);
  switch (name) {
    case '':
      return null;
    case 'stripe':
      return { name, stripe: parseStripeConfig(env) };
    case 'checkout':
      return { name, checkout: parseCheckoutConfig(env) };
    default:
      throw new Error(`OBOLUS_LIVE_CONNECTOR must be one of: ${LIVE_CONNECTORS.join(', ')}; got '${name}'`);
  }
}

/** The one connector whose secret key is set; both set is ambiguous and must be chosen. */
function inferred(env: NodeJS.ProcessEnv): string {
  const set = [env.OBOLUS_STRIPE_SECRET_KEY ? 'stripe' : '', env.OBOLUS_CHECKOUT_SECRET_KEY ? 'checkout' : ''];
  const names = set.filter(Boolean);
  if (names.length > 1)
    throw new Error('OBOLUS_LIVE_CONNECTOR must say which live connector to use: stripe or checkout');
  return names[0] ?? '';
}
