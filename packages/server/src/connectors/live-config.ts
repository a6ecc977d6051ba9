import { parseStripeConfig, type StripeConfig } from './stripe/config.ts';

/**
 * Which live connector the operator chose, with its own configuration. Each connector
 * parses its own OBOLUS_<NAME>_* variables; errors name the variable and never echo a secret.
 */
export type LiveConnectorConfig = { name: 'stripe'; stripe: StripeConfig };

export const LIVE_CONNECTORS = ['stripe'] as const;

/**
 * Reads OBOLUS_LIVE_CONNECTOR, or infers it from the one connector whose variables are set.
 * Nothing set: no live connector, and live payments are refused (never simulated).
 */
export function parseLiveConnectorConfig(env: NodeJS.ProcessEnv): LiveConnectorConfig | null {
  const name = env.OBOLUS_LIVE_CONNECTOR || (env.OBOLUS_STRIPE_SECRET_KEY ? 'stripe' : '');
  switch (name) {
    case '':
      return null;
    case 'stripe':
      return { name, stripe: parseStripeConfig(env) };
    default:
      throw new Error(`OBOLUS_LIVE_CONNECTOR must be one of: ${LIVE_CONNECTORS.join(', ')}; got '${name}'`);
  }
}
