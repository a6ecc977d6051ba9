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

/** What ties a ciphertext to one payment attempt (docs/widget-protocol.md). */
export interface CardBinding {
  paymentIntent: string;
  /** The server's time now, in ms (the shopper's clock may be wrong). */
  serverNow: number;
}

/**
 * The card as a compact JWE (ECDH-ES+A256KW to a P-256 key, or RSA-OAEP-256 to a key made
 * before those; A256GCM) to the service's public key: only the Obolus server can read it, so
 * nothing between (nor any script of the host page) ever sees the card in clear. The protected
 * header, which AES-GCM authenticates, names the intent, the time and a unique id, so the
 * server takes it for this attempt only. Only jose's two modules for this are bundled; the
 * browser's WebCrypto does the work (a fresh ephemeral P-256 key for every card).
 */
export async function encryptCard(jwk: Jwk, card: CardPayload, binding: CardBinding): Promise<string> {
  const alg = jwk.kty === 'EC' ? 'ECDH-ES+A256KW' : 'RSA-OAEP-256';
  const key = await importJWK(
    jwk.kty === 'EC' ? { kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y } : { kty: jwk.kty, n: jwk.n, e: jwk.e },
    alg,
  );
  const plaintext = new TextEncoder().encode(JSON.stringify(card));
  return new CompactEncrypt(plaintext)
    .setProtectedHeader({
      alg,
      enc: 'A256GCM',
      kid: jwk.kid,
      payment_intent: binding.paymentIntent,
      iat: Math.floor(binding.serverNow / 1000),
      jti: randomId(),
    })
    .encrypt(key);
}

/** 128 random bits, base64url. */
function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}
