import { apiBaseOf } from '../api-base.ts';

/** How Obolus reaches Checkout.com (docs/live.md). Secrets are never logged nor echoed in errors. */
export interface CheckoutConfig {
  secretKey: string;
  processingChannelId: string;
  /** The key of the webhook endpoint: Cko-Signature is its HMAC-SHA256 of the raw body. */
  webhookSecret: string;
  /** https://api.checkout.com (or the account's {prefix}.api.checkout.com), or a loopback double. */
  apiBase: URL;
  /** One request's timeout; with one retry, the whole call stays under the widget's patience. */
  timeoutMs: number;
}

export const DEFAULT_CHECKOUT_API_BASE = 'https://api.checkout.com';
/** 2 tries x 8 s: under 20 s, well before a shopper gives up (as for Stripe). */
export const CHECKOUT_TIMEOUT_MS = 8000;
const MAX_SECRET_LENGTH = 512;

/**
 * Reads OBOLUS_CHECKOUT_*. A sandbox key (sk_sbox_…) is refused: live payments must move
 * real money. Errors name the variable only.
 */
export function parseCheckoutConfig(env: NodeJS.ProcessEnv): CheckoutConfig {
  return {
    secretKey: secretKeyOf(env.OBOLUS_CHECKOUT_SECRET_KEY ?? ''),
    processingChannelId: channelOf(env.OBOLUS_CHECKOUT_PROCESSING_CHANNEL_ID ?? ''),
    webhookSecret: webhookSecretOf(env.OBOLUS_CHECKOUT_WEBHOOK_SECRET ?? ''),
    apiBase: apiBaseOf('OBOLUS_CHECKOUT_API_BASE', env.OBOLUS_CHECKOUT_API_BASE || DEFAULT_CHECKOUT_API_BASE),
    timeoutMs: CHECKOUT_TIMEOUT_MS,
  };
}

function secretKeyOf(key: string): string {
  const name = 'OBOLUS_CHECKOUT_SECRET_KEY';
  if (key === '') throw new Error(`${name} is required for the Checkout.com connector (a live secret key, sk_…)`);
  if (key.startsWith('sk_sbox_') || key.startsWith('sk_test_')) {
    throw new Error(
      `${name} is a sandbox key: live payments need a live key. Sandbox payments never reach Checkout.com.`,
    );
  }
  if (!/^sk_[0-9A-Za-z_*#$=-]+$/.test(key) || key.length > MAX_SECRET_LENGTH) {
    throw new Error(`${name} must be a Checkout.com live secret key: sk_ followed by letters and digits`);
  }
  return key;
}

function channelOf(id: string): string {
  const name = 'OBOLUS_CHECKOUT_PROCESSING_CHANNEL_ID';
  if (!/^pc_[0-9a-z]{26}$/.test(id)) {
    throw new Error(`${name} is required for the Checkout.com connector: pc_ followed by 26 letters and digits`);
  }
  return id;
}

function webhookSecretOf(secret: string): string {
  const name = 'OBOLUS_CHECKOUT_WEBHOOK_SECRET';
  if (secret.length < 16 || secret.length > MAX_SECRET_LENGTH || /\s/.test(secret)) {
    throw new Error(`${name} is required for the Checkout.com connector: the webhook's signature key (16+ characters)`);
  }
  return secret;
}
