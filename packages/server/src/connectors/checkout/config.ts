import { apiBaseOf } from '../api-base.ts';

/** How Obolus reaches Checkout.com (docs/live.md). Secrets are never logged nor echoed in errors. */
export interface CheckoutConfig {
  secretKey: string;
  processingChannelId: string;
  /** The key of the webhook endpoint: Cko-Signature is its HMAC-SHA256 of the raw body. */
  webhookSecret: string;
  /** https://api.checkout.com (or the account's {prefix}.api.checkout.com), or a loopback double. */
  apiBase: URL;
  /** One request's deadline; an authorization (a POST, a lookup, perhaps a resend) stays under 2.5 of them. */
  timeoutMs: number;
  /**
   * OBOLUS_CHECKOUT_3DS: attempt (the default) sends 3-D Secure with attempt_n3d, so a card
   * whose issuer is not enrolled is charged without authentication, as Stripe does; always
   * refuses such a card (decision 0194).
   */
  threeDS: 'attempt' | 'always';
}

export const DEFAULT_CHECKOUT_API_BASE = 'https://api.checkout.com';
export const SANDBOX_CHECKOUT_API_BASE = 'https://api.sandbox.checkout.com';
/** 2.5 x 8 s: under 20 s, well before a shopper gives up (as for Stripe). */
export const CHECKOUT_TIMEOUT_MS = 8000;
const MAX_SECRET_LENGTH = 512;

/**
 * Reads OBOLUS_CHECKOUT_*. For live payments a sandbox key (sk_sbox_…) is refused: they must
 * move real money. `sandbox` (obolus verify-connector) is the other way round: sandbox keys
 * only, and no webhook secret needed. Errors name the variable only.
 */
export function parseCheckoutConfig(env: NodeJS.ProcessEnv, options: { sandbox?: boolean } = {}): CheckoutConfig {
  const sandbox = options.sandbox === true;
  const base = sandbox ? SANDBOX_CHECKOUT_API_BASE : DEFAULT_CHECKOUT_API_BASE;
  return {
    secretKey: secretKeyOf(env.OBOLUS_CHECKOUT_SECRET_KEY ?? '', sandbox),
    processingChannelId: channelOf(env.OBOLUS_CHECKOUT_PROCESSING_CHANNEL_ID ?? ''),
    webhookSecret: sandbox
      ? 'verify-connector-receives-no-webhooks'
      : webhookSecretOf(env.OBOLUS_CHECKOUT_WEBHOOK_SECRET ?? ''),
    apiBase: apiBaseOf('OBOLUS_CHECKOUT_API_BASE', env.OBOLUS_CHECKOUT_API_BASE || base),
    timeoutMs: CHECKOUT_TIMEOUT_MS,
    threeDS: threeDSOf(env.OBOLUS_CHECKOUT_3DS ?? ''),
  };
}

function threeDSOf(value: string): 'attempt' | 'always' {
  if (value === '' || value === 'attempt') return 'attempt';
  if (value === 'always') return 'always';
  throw new Error(`OBOLUS_CHECKOUT_3DS must be attempt or always; got '${value.slice(0, 20)}'`);
}

function secretKeyOf(key: string, sandbox: boolean): string {
  const name = 'OBOLUS_CHECKOUT_SECRET_KEY';
  const isSandboxKey = key.startsWith('sk_sbox_') || key.startsWith('sk_test_');
  if (sandbox) {
    if (key === '' || !isSandboxKey) {
      throw new Error(`${name} must be a sandbox key (sk_sbox_…): verify-connector never runs against live money.`);
    }
    if (!/^sk_[0-9A-Za-z_*#$=-]+$/.test(key) || key.length > MAX_SECRET_LENGTH) {
      throw new Error(`${name} must be a Checkout.com secret key: sk_ followed by letters and digits`);
    }
    return key;
  }
  if (key === '') throw new Error(`${name} is required for the Checkout.com connector (a live secret key, sk_…)`);
  if (isSandboxKey) {
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
