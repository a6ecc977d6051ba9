/**
 * The bench's card encryption, as the widget does it (docs/widget-protocol.md). Kept in
 * one function so that a change of the widget's JWE header is one change here.
 */
import { randomBytes } from 'node:crypto';
import { CompactEncrypt, importJWK, type JWK } from 'jose';

const CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123', name: 'Bench Shopper' };

/**
 * A frictionless sandbox card (4242…) encrypted to the service's key, bound like the
 * widget's to the intent `intentId`, this moment and a unique id (decision 0080).
 */
export async function encryptCard(jwk: JWK, intentId: string): Promise<string> {
  const alg = jwk.kty === 'EC' ? 'ECDH-ES+A256KW' : 'RSA-OAEP-256';
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(CARD)))
    .setProtectedHeader({
      alg,
      enc: 'A256GCM',
      kid: jwk.kid as string,
      payment_intent: intentId,
      iat: Math.floor(Date.now() / 1000),
      jti: randomBytes(16).toString('base64url'),
    })
    .encrypt(await importJWK(jwk, alg));
}
