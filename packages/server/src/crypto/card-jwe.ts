/**
 * Compact JWE decryption of a card (RFC 7516, algorithms of RFC 7518) in synchronous node:crypto,
 * for the card-decryption threads (decision 0251): jose 6 decrypts through WebCrypto, whose every
 * operation is queued on libuv's shared pool, the very pool these threads keep card decryption
 * off. Exactly the two algorithm pairs the widget uses, nothing else:
 * - `ECDH-ES+A256KW` (P-256) with `A256GCM`: the current keys (decision 0250);
 * - `RSA-OAEP-256` with `A256GCM`: keys made before, until they are retired.
 * The tests check it against jose's and the browsers' encryption. Plain node:crypto only: this
 * file runs in the threads, outside the app's module graph.
 */
import {
  constants,
  createDecipheriv,
  createHash,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  type JsonWebKey,
  type KeyObject,
  privateDecrypt,
} from 'node:crypto';

export const JWE_ECDH = 'ECDH-ES+A256KW';
export const JWE_RSA = 'RSA-OAEP-256';
export const JWE_ENC = 'A256GCM';
export type CardJweAlg = typeof JWE_ECDH | typeof JWE_RSA;

/** The default initial value of AES Key Wrap (RFC 3394 §2.2.3.1). */
const KW_IV = Buffer.from('A6A6A6A6A6A6A6A6', 'hex');
const CEK_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Anything wrong with a ciphertext; its message is for logs of tests, never for the shopper. */
export class JweRefused extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'JweRefused';
  }
}

/** The algorithm a key of this type decrypts: one per key type, as the JWKS publishes it. */
export function algOfKey(jwk: { kty?: string; crv?: string }): CardJweAlg {
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return JWE_ECDH;
  if (jwk.kty === 'RSA') return JWE_RSA;
  throw new Error(`no card-encryption algorithm for a ${jwk.kty} key`);
}

export const privateKeyOf = (jwk: JsonWebKey): KeyObject => createPrivateKey({ key: jwk, format: 'jwk' });

/**
 * The plaintext of a compact JWE encrypted to `key` (a private key of algorithm `alg`).
 * Throws JweRefused for anything malformed, tampered, or of another algorithm.
 */
export function decryptCompact(jwe: string, key: KeyObject, alg: CardJweAlg): Uint8Array {
  const parts = jwe.split('.');
  if (parts.length !== 5) throw new JweRefused('not a compact JWE');
  const [protectedB64, encryptedKeyB64, ivB64, ciphertextB64, tagB64] = parts as [
    string,
    string,
    string,
    string,
    string,
  ];
  const header = parseHeader(protectedB64);
  if (header.alg !== alg) throw new JweRefused(`alg ${String(header.alg)} is not the key's ${alg}`);
  if (header.enc !== JWE_ENC) throw new JweRefused(`enc ${String(header.enc)} is not ${JWE_ENC}`);
  // A header member the sender marks critical is one we would have to understand: we understand none.
  if (header.crit !== undefined) throw new JweRefused('crit is not supported');
  if (header.zip !== undefined) throw new JweRefused('zip is not supported');
  const encryptedKey = bytes(encryptedKeyB64);
  const cek = alg === JWE_ECDH ? unwrapEcdh(header, key, encryptedKey) : unwrapRsa(key, encryptedKey);
  if (cek.length !== CEK_BYTES) throw new JweRefused('the content key is not 256 bits');
  const iv = bytes(ivB64);
  const tag = bytes(tagB64);
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new JweRefused('iv or tag of the wrong size');
  try {
    const decipher = createDecipheriv('aes-256-gcm', cek, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(protectedB64, 'ascii'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(bytes(ciphertextB64)), decipher.final()]);
  } catch {
    throw new JweRefused('the content does not authenticate');
  }
}

function parseHeader(b64: string): Record<string, unknown> {
  let header: unknown;
  try {
    header = JSON.parse(bytes(b64).toString('utf8'));
  } catch {
    throw new JweRefused('the protected header is not JSON');
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw new JweRefused('the protected header is not an object');
  }
  return header as Record<string, unknown>;
}

/** base64url without padding, strictly: anything else is refused rather than read leniently. */
function bytes(b64: string): Buffer {
  if (!/^[A-Za-z0-9_-]*$/.test(b64)) throw new JweRefused('not base64url');
  return Buffer.from(b64, 'base64url');
}

function unwrapRsa(key: KeyObject, encryptedKey: Buffer): Buffer {
  try {
    return privateDecrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, encryptedKey);
  } catch {
    throw new JweRefused('the content key does not decrypt');
  }
}

/** RFC 7518 §4.6: ECDH with the sender's ephemeral key, Concat KDF, then AES Key Wrap. */
function unwrapEcdh(header: Record<string, unknown>, key: KeyObject, encryptedKey: Buffer): Buffer {
  const epk = header.epk as Record<string, unknown> | undefined;
  if (typeof epk !== 'object' || epk === null || epk.kty !== 'EC' || epk.crv !== 'P-256') {
    throw new JweRefused('epk is not a P-256 public key');
  }
  if (typeof epk.x !== 'string' || typeof epk.y !== 'string') throw new JweRefused('epk is not a P-256 public key');
  let shared: Buffer;
  try {
    // Importing checks the point is on the curve: a point off it would leak the private key.
    const publicKey = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: epk.x, y: epk.y }, format: 'jwk' });
    shared = diffieHellman({ privateKey: key, publicKey });
  } catch {
    throw new JweRefused('epk is not a point of P-256');
  }
  const kek = concatKdf(shared, JWE_ECDH, optionalBytes(header.apu, 'apu'), optionalBytes(header.apv, 'apv'));
  if (encryptedKey.length !== CEK_BYTES + 8) throw new JweRefused('the wrapped key is not 256 bits');
  try {
    const unwrap = createDecipheriv('id-aes256-wrap', kek, KW_IV);
    return Buffer.concat([unwrap.update(encryptedKey), unwrap.final()]);
  } catch {
    throw new JweRefused('the content key does not unwrap');
  }
}

function optionalBytes(value: unknown, name: string): Buffer {
  if (value === undefined) return Buffer.alloc(0);
  if (typeof value !== 'string') throw new JweRefused(`${name} is not base64url`);
  return bytes(value);
}

/**
 * NIST SP 800-56A Concat KDF with SHA-256 as RFC 7518 §4.6.2 fixes it, for a 256-bit key:
 * one round, SHA-256(counter 1 ‖ Z ‖ AlgorithmID ‖ PartyUInfo ‖ PartyVInfo ‖ SuppPubInfo).
 */
function concatKdf(shared: Buffer, alg: string, apu: Buffer, apv: Buffer): Buffer {
  return createHash('sha256')
    .update(uint32(1))
    .update(shared)
    .update(lengthPrefixed(Buffer.from(alg, 'ascii')))
    .update(lengthPrefixed(apu))
    .update(lengthPrefixed(apv))
    .update(uint32(CEK_BYTES * 8))
    .digest();
}

const lengthPrefixed = (data: Buffer) => Buffer.concat([uint32(data.length), data]);

function uint32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}
