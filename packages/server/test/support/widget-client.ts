import { randomBytes } from 'node:crypto';
import { CompactEncrypt, importJWK, type JWK } from 'jose';
import { CLIENT_SECRET } from '../../src/ids.ts';
import type { TestResponse, TestServer } from './server.ts';

export interface CardIn {
  number: string;
  exp_month: number | string;
  exp_year: number | string;
  cvc: string;
  name: string;
}

export const card = (number: string, over: Partial<CardIn> = {}): CardIn => ({
  number,
  exp_month: 12,
  exp_year: new Date().getUTCFullYear() + 3,
  cvc: number.length === 15 ? '1234' : '123',
  name: 'Ada Lovelace',
  ...over,
});

export interface EncryptOptions {
  alg?: string;
  kid?: string;
  /** The key to encrypt to; default: the first of the JWKS. */
  jwk?: JWK;
  /** The issue time in ms; default: now by the server's clock (as the widget does). */
  at?: number;
  jti?: string;
  /** Replaces the binding claims of the protected header (payment_intent, iat, jti). */
  binding?: Record<string, unknown>;
}

/** The intent id of a client_secret (`pi_<id>_secret_…`), or the argument when it is an id. */
export const intentIdOf = (secretOrId: string) => CLIENT_SECRET.exec(secretOrId)?.[1] ?? secretOrId;

/** The algorithm the widget uses with a key of the JWKS: the one the key names. */
export const algOf = (jwk: JWK) => (jwk.kty === 'EC' ? 'ECDH-ES+A256KW' : 'RSA-OAEP-256');

/**
 * Encrypts like the widget does: compact JWE, ECDH-ES+A256KW (or RSA-OAEP-256 to an RSA key)
 * + A256GCM, to the first key of the JWKS, bound to `intent` (an id or a client_secret) by the
 * protected header.
 */
export async function encryptCard(t: TestServer, intent: string, plain: unknown, options: EncryptOptions = {}) {
  const jwk = options.jwk ?? ((await t.call('GET', '/embed/v1/jwks.json')).json as { keys: JWK[] }).keys[0]!;
  const alg = options.alg ?? algOf(jwk);
  const key = await importJWK(jwk, alg);
  const binding = options.binding ?? {
    payment_intent: intentIdOf(intent),
    iat: Math.floor((options.at ?? t.server.services.clock.now()) / 1000),
    jti: options.jti ?? randomBytes(16).toString('base64url'),
  };
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(plain)))
    .setProtectedHeader({ alg, enc: 'A256GCM', kid: options.kid ?? (jwk.kid as string), ...binding })
    .encrypt(key);
}

/** Acts as the widget: create nothing, only pay an intent with a card. */
export async function confirm(
  t: TestServer,
  pk: string,
  clientSecret: string,
  plainCard: unknown,
  extra: { mode?: string; jwe?: string; headers?: Record<string, string> } = {},
): Promise<TestResponse> {
  const jwe = extra.jwe ?? (await encryptCard(t, clientSecret, plainCard));
  return t.call('POST', '/embed/v1/confirm', {
    body: { pk, client_secret: clientSecret, mode: extra.mode ?? 'sandbox', card: jwe },
    ...(extra.headers ? { headers: extra.headers } : {}),
  });
}

export async function createIntent(t: TestServer, secretKey: string, body: Record<string, unknown> = {}) {
  const res = await t.call('POST', '/api/v1/payment-intents', {
    key: secretKey,
    body: { amount: 2000, currency: 'USD', mode: 'sandbox', ...body },
  });
  if (res.status !== 200) throw new Error(`create intent failed: ${res.text}`);
  return res.json as { id: string; client_secret: string; mode: string; amount: number };
}
