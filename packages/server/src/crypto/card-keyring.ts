import {
  type CryptoKey,
  compactDecrypt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
} from 'jose';
import type { Clock } from '../clock.ts';
import { MINUTE } from '../clock.ts';
import { randomBase62 } from '../ids.ts';

/**
 * The card-encryption keys: the widget encrypts the card as a compact JWE to the newest
 * public key; the server decrypts in memory only. After a rotation the previous key keeps
 * decrypting for a grace period, so widgets loaded before the rotation still work.
 */
export const CARD_JWE_ALG = 'RSA-OAEP-256';
export const CARD_JWE_ENC = 'A256GCM';
const RELOAD_MS = MINUTE;

export interface StoredKeyPair {
  kid: string;
  publicJwk: JWK;
  privateJwk: JWK;
  createdAt: number;
  decryptsUntil: number | null;
}

export interface EncryptionKeyStore {
  /** Keys that still decrypt at `now`, newest first. */
  usable(now: number): Promise<StoredKeyPair[]>;
  /** Adds `next` as the current key; current keys decrypt until `previousDecryptUntil`. */
  rotate(next: StoredKeyPair, previousDecryptUntil: number): Promise<void>;
}

export interface DecryptedCard {
  /** The plaintext as JSON: not yet known to be a card, nor even an object. */
  payload: unknown;
  header: Record<string, unknown>;
}

interface LoadedKey {
  pair: StoredKeyPair;
  privateKey: CryptoKey;
}

export class CardKeyring {
  readonly #store: EncryptionKeyStore;
  readonly #clock: Clock;
  #keys: LoadedKey[] = [];
  #loadedAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<void> | undefined;

  constructor(store: EncryptionKeyStore, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /** Public keys for the JWKS, newest (the one to encrypt to) first. */
  async publicJwks(): Promise<JWK[]> {
    await this.#fresh();
    return this.#keys.map(({ pair }) => ({ ...pair.publicJwk, kid: pair.kid, alg: CARD_JWE_ALG, use: 'enc' }));
  }

  /** Makes a new current key; the previous ones decrypt for `graceMs` more. */
  async rotate(graceMs: number): Promise<string> {
    const pair = await newKeyPair(this.#clock.now());
    await this.#store.rotate(pair, this.#clock.now() + graceMs);
    await this.#reload();
    return pair.kid;
  }

  /**
   * Decrypts a card JWE: its JSON payload and its protected header (authenticated by the
   * content encryption). Anything malformed, tampered or for an unknown key is one clear error.
   */
  async decrypt(jwe: string): Promise<DecryptedCard> {
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(jwe).kid;
    } catch {
      throw new UnreadableCiphertext();
    }
    if (!this.#find(kid)) await this.#fresh(true);
    let key = this.#find(kid);
    if (!key) throw new UnreadableCiphertext('the key it was encrypted to is unknown or retired; reload the widget');
    if (key.pair.decryptsUntil !== null && key.pair.decryptsUntil <= this.#clock.now()) key = undefined;
    if (!key) throw new UnreadableCiphertext('the key it was encrypted to is retired; reload the widget');
    try {
      const { plaintext, protectedHeader } = await compactDecrypt(jwe, key.privateKey, {
        keyManagementAlgorithms: [CARD_JWE_ALG],
        contentEncryptionAlgorithms: [CARD_JWE_ENC],
      });
      return { payload: JSON.parse(new TextDecoder().decode(plaintext)), header: protectedHeader };
    } catch {
      throw new UnreadableCiphertext();
    }
  }

  #find(kid: string | undefined): LoadedKey | undefined {
    return kid === undefined ? undefined : this.#keys.find((k) => k.pair.kid === kid);
  }

  async #fresh(force = false): Promise<void> {
    if (!force && this.#clock.now() - this.#loadedAt < RELOAD_MS && this.#keys.length > 0) return;
    this.#loading ??= this.#reload().finally(() => {
      this.#loading = undefined;
    });
    await this.#loading;
  }

  async #reload(): Promise<void> {
    let pairs = await this.#store.usable(this.#clock.now());
    if (pairs.length === 0) {
      // First start: make the first key. Two processes racing here both succeed; both keys work.
      await this.#store.rotate(await newKeyPair(this.#clock.now()), this.#clock.now());
      pairs = await this.#store.usable(this.#clock.now());
    }
    this.#keys = await Promise.all(
      pairs.map(async (pair) => ({ pair, privateKey: (await importJWK(pair.privateJwk, CARD_JWE_ALG)) as CryptoKey })),
    );
    this.#loadedAt = this.#clock.now();
  }
}

async function newKeyPair(now: number): Promise<StoredKeyPair> {
  const { publicKey, privateKey } = await generateKeyPair(CARD_JWE_ALG, { modulusLength: 2048, extractable: true });
  return {
    kid: `ck_${randomBase62(16)}`,
    publicJwk: await exportJWK(publicKey),
    privateJwk: await exportJWK(privateKey),
    createdAt: now,
    decryptsUntil: null,
  };
}

/**
 * A card ciphertext this keyring cannot read, and why in words a shopper's widget can show.
 * The domain answers it as `card_encryption_invalid` (crypto knows no API errors, decision 0282).
 */
export class UnreadableCiphertext extends Error {
  readonly reason: string;
  constructor(reason = 'it is malformed or was tampered with') {
    super(`The encrypted card could not be read: ${reason}.`);
    this.reason = reason;
  }
}
