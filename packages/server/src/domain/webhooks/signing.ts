import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signing (decision 0023): any receiver verifies with the `standardwebhooks`
 * library, or with an HMAC-SHA256 over `${id}.${timestamp}.${body}` (docs/webhooks.md).
 */

/** 32 random bytes, base64, behind `whsec_`: the shape Standard Webhooks libraries read (24 to 64 bytes). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Headers for one message. With several secrets (a roll's grace period) the signature header
 * carries one `v1,…` per secret, space-separated, and a receiver holding either one verifies.
 */
export function signMessage(secrets: string[], msgId: string, atMs: number, payload: string): SignedHeaders {
  const at = new Date(atMs);
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(atMs / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(msgId, at, payload)).join(' '),
  };
}
