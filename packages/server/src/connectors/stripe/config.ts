import { apiBaseOf } from '../api-base.ts';
import { descriptorPrefixOf } from './descriptor.ts';

/** How Obolus reaches Stripe (docs/live.md). Secrets are never logged nor echoed in errors. */
export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  /** https://api.stripe.com, or a loopback double over http:// for development and tests. */
  apiBase: URL;
  /** One request's timeout; with one retry, the whole call stays under the widget's patience. */
  timeoutMs: number;
  /**
   * OBOLUS_STRIPE_DESCRIPTOR_PREFIX: the account's shortened descriptor, so the suffix gets the
   * room it leaves; null: room is left for the longest prefix (decision 0198).
   */
  descriptorPrefix: string | null;
}

export const DEFAULT_STRIPE_API_BASE = 'https://api.stripe.com';
/** 2 tries x 8 s + the SDK's retry delay (<= 2 s): under 20 s, well before a shopper gives up. */
export const STRIPE_TIMEOUT_MS = 8000;
const MAX_SECRET_LENGTH = 512;

/**
 * Reads OBOLUS_STRIPE_*. For live payments a test key (sk_test_…) is refused: they must move
 * real money, and a test key would make every "approved" a lie. `sandbox` (obolus
 * verify-connector) is the other way round: test-mode keys only, no webhook secret needed.
 * Errors name the variable only.
 */
export function parseStripeConfig(env: NodeJS.ProcessEnv, options: { sandbox?: boolean } = {}): StripeConfig {
  const sandbox = options.sandbox === true;
  return {
    secretKey: sandbox
      ? testKeyOf(env.OBOLUS_STRIPE_SECRET_KEY ?? '')
      : secretKeyOf(env.OBOLUS_STRIPE_SECRET_KEY ?? ''),
    webhookSecret: sandbox
      ? 'whsec_verifyConnectorReceivesNoWebhooks'
      : webhookSecretOf(env.OBOLUS_STRIPE_WEBHOOK_SECRET ?? ''),
    apiBase: apiBaseOf('OBOLUS_STRIPE_API_BASE', env.OBOLUS_STRIPE_API_BASE || DEFAULT_STRIPE_API_BASE),
    timeoutMs: STRIPE_TIMEOUT_MS,
    descriptorPrefix: descriptorPrefixOf(env.OBOLUS_STRIPE_DESCRIPTOR_PREFIX),
  };
}

function testKeyOf(key: string): string {
  if (!/^(sk|rk)_test_[0-9A-Za-z_]+$/.test(key) || key.length > MAX_SECRET_LENGTH) {
    throw new Error(
      'OBOLUS_STRIPE_SECRET_KEY must be a test-mode key (sk_test_… or rk_test_…): verify-connector never runs against live money.',
    );
  }
  return key;
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
