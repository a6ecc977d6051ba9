import { CompactEncrypt } from 'jose/jwe/compact/encrypt';
import { importJWK } from 'jose/key/import';
import type { Jwk } from './api.ts';

export interface CardPayload {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
  name: string;
}

/**
 * The card as a compact JWE (RSA-OAEP-256 + A256GCM) to the service's public key: only
 * the Obolus server can read it, so nothing between (nor any script of the host page)
 * ever sees the card in clear. Only jose's two modules for this are bundled.
 */
export async function encryptCard(jwk: Jwk, card: CardPayload): Promise<string> {
  const key = await importJWK({ kty: jwk.kty, n: jwk.n, e: jwk.e }, 'RSA-OAEP-256');
  const plaintext = new TextEncoder().encode(JSON.stringify(card));
  return new CompactEncrypt(plaintext)
    .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', kid: jwk.kid })
    .encrypt(key);
}
