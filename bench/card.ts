/**
 * The bench's card encryption, as the widget does it (docs/widget-protocol.md). Kept in
 * one function so that a change of the widget's JWE header is one change here.
 */
import { CompactEncrypt, importJWK, type JWK } from 'jose';

const CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123', name: 'Bench Shopper' };

/** A frictionless sandbox card (4242…) encrypted to the service's key, for the intent `intentId`. */
export async function encryptCard(jwk: JWK, intentId: string): Promise<string> {
  void intentId; // Not in the header yet; the widget's next protocol binds the JWE to its intent.
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(CARD)))
    .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', kid: jwk.kid as string })
    .encrypt(await importJWK(jwk, 'RSA-OAEP-256'));
}
