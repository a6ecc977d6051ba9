import { apiBaseOf } from '../api-base.ts';

/** How Obolus reaches Stripe (docs/live.md). Secrets are never logged nor echoed in errors. */
export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  /** https://api.stripe.com, or a loopback double over http:// for development and tests. */
  apiBase: URL;
  /** One request's timeout; with one retry, the whole call stays under the widget's patience. */
  timeoutMs: number;
}

export const DEFAULT_STRIPE_API_BASE = 'https://api.stripe.com';
/** 2 tries x 8 s + the SDK's retry delay (<= 2 s): under 20 s, well before a shopper gives up. */
export const STRIPE_TIMEOUT_MS = 8000;
const MAX_SECRET_LENGTH = 512;

/**
 * Reads OBOLUS_STRIPE_*. A test key (sk_test_…) is refused: live payments must move real
 * money, and a test key would make every "approved" a lie. Errors name the variable only.
 */
export function parseStripeConfig(env: NodeJS.ProcessEnv): StripeConfig {
  return {
    secretKey: secretKeyOf(env.OBOLUS_STRIPE_SECRET_KEY ?? ''),
    webhookSecret: webhookSecretOf(env.OBOLUS_STRIPE_WEBHOOK_SECRET ?? ''),
    apiBase: apiBaseOf('OBOLUS_STRIPE_API_BASE', env.OBOLUS_STRIPE_API_BASE || DEFAULT_STRIPE_API_BASE),
    timeoutMs: STRIPE_TIMEOUT_MS,
  };
}

function secretKeyOf(key: string): string {
  const name = 'OBOLUS_STRIPE_SECRET_KEY';
  if (key === '') throw new Error(`${name} is required for the Stripe connector (a live secret key, sk_live_…)`);
  if (/^(sk|rk)_test_/.test(key)) {
    throw new Error(
      `${name} is a test-mode key (sk_test_…): live payments need a live key (sk_live_… or rk_live_…). Sandbox payments never reach Stripe.`,
    );
  }
  if (!/^(sk|rk)_live_[0-9A-Za-z_]+$/.test(key) || key.length > MAX_SECRET_LENGTH) {
    throw new Error(`${name} must be a Stripe live secret key: sk_live_ or rk_live_ followed by letters and digits`);
  }
  return key;
}

function webhookSecretOf(secret: string): string {
  const name = 'OBOLUS_STRIPE_WEBHOOK_SECRET';
  if (secret === '') {
    throw new Error(
      `${name} is required for the Stripe connector: the signing secret (whsec_…) of the webhook endpoint`,
    );
  }
  if (!/^whsec_[0-9A-Za-z+/=_-]+$/.test(secret) || secret.length > MAX_SECRET_LENGTH) {
    throw new Error(`${name} must be a webhook signing secret: whsec_ followed by letters and digits`);
  }
  return secret;
}
