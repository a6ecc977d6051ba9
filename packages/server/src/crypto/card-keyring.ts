import { generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { decodeProtectedHeader, type JWK } from 'jose';
import type { Clock } from '../clock.ts';
import { DAY, MINUTE } from '../clock.ts';
import { randomBase62 } from '../ids.ts';
import { CardDecryptionBusy, type CardDecryptPool, cardDecryptPool } from './card-decrypt-pool.ts';
import { algOfKey, type CardJweAlg, JWE_ECDH, JWE_ENC, JWE_RSA } from './card-jwe.ts';
import { WorkerLost } from './worker-pool.ts';

/**
 * The card-encryption keys: the widget encrypts the card as a compact JWE to the newest
 * public key; the server decrypts in memory only, on threads of its own (decision 0251). New
 * keys are P-256 (`ECDH-ES+A256KW`, decision 0250); RSA keys made before keep decrypting until
 * they are retired. After a rotation the previous key keeps decrypting for a grace period, so
 * widgets loaded before the rotation still work; then it is retired and its ciphertexts refused.
 */
export const CARD_JWE_ENC = JWE_ENC;
const RELOAD_MS = MINUTE;
/**
 * An installation whose current key is RSA gets a P-256 key at start; its RSA key decrypts
 * for this long more (the default grace of `obolus keys rotate-encryption`), then retires.
 */
export const RSA_UPGRADE_GRACE_MS = DAY;

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
  /**
   * Adds `next` as the current key; current keys decrypt until `previousDecryptUntil`. With
   * `replacing`, only while that key is still a current one (false, and nothing done, when not).
   */
  rotate(next: StoredKeyPair, previousDecryptUntil: number, replacing?: string): Promise<boolean>;
  /** Ends the decrypting of key `kid`, not a current one, at `at`; false when there is no such key. */
  retire(kid: string, at: number): Promise<boolean>;
  /** Every key, retired ones too, newest first: what `obolus keys list-encryption` shows. */
  list(): Promise<KeySummary[]>;
}

export interface KeySummary {
  kid: string;
  alg: CardJweAlg;
  createdAt: number;
  decryptsUntil: number | null;
}

export interface DecryptedCard {
  /** The plaintext as JSON: not yet known to be a card, nor even an object. */
  payload: unknown;
  header: Record<string, unknown>;
}

interface LoadedKey {
  pair: StoredKeyPair;
  alg: CardJweAlg;
}

export class CardKeyring {
  readonly #store: EncryptionKeyStore;
  readonly #clock: Clock;
  #keys: LoadedKey[] = [];
  #loadedAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<void> | undefined;
  readonly #pool: () => CardDecryptPool;

  constructor(store: EncryptionKeyStore, clock: Clock, pool: () => CardDecryptPool = cardDecryptPool) {
    this.#store = store;
    this.#clock = clock;
    this.#pool = pool;
  }

  /** Public keys for the JWKS, newest (the one to encrypt to) first. */
  async publicJwks(): Promise<JWK[]> {
    await this.#fresh();
    return this.#keys.map(({ pair, alg }) => ({ ...pair.publicJwk, kid: pair.kid, alg, use: 'enc' }));
  }

  /** Makes a new current (P-256) key; the previous ones decrypt for `graceMs` more. */
  async rotate(graceMs: number): Promise<string> {
    const pair = newCardKeyPair(this.#clock.now());
    await this.#store.rotate(pair, this.#clock.now() + graceMs);
    await this.#reload();
    return pair.kid;
  }

  /**
   * Retires key `kid` now: its ciphertexts are refused from now on by this process, and by the
   * others when they next reread the keys (within a minute). The current key cannot be retired:
   * rotate first. Undefined when no key of that id still decrypts.
   */
  async retire(kid: string): Promise<KeySummary | undefined> {
    const key = (await this.#store.list()).find((k) => k.kid === kid);
    if (!key) return undefined;
    const now = this.#clock.now();
    if (key.decryptsUntil === null) {
      throw new CurrentCardKey(kid);
    }
    if (key.decryptsUntil <= now) return undefined;
    if (!(await this.#store.retire(kid, now))) return undefined;
    await this.#reload();
    return { ...key, decryptsUntil: now };
  }

  /** Every key with its algorithm and when it stops decrypting (null: the current key). */
  list(): Promise<KeySummary[]> {
    return this.#store.list();
  }

  /**
   * Decrypts a card JWE: its JSON payload and its protected header (authenticated by the
   * content encryption). Anything malformed, tampered or for an unknown key is one clear error.
   */
  async decrypt(jwe: string): Promise<DecryptedCard> {
    let header: Record<string, unknown>;
    try {
      header = decodeProtectedHeader(jwe);
    } catch {
      throw new UnreadableCiphertext();
    }
    const kid = typeof header.kid === 'string' ? header.kid : undefined;
    if (!this.#find(kid)) await this.#fresh(true);
    let key = this.#find(kid);
    if (!key) throw new UnreadableCiphertext('the key it was encrypted to is unknown or retired; reload the widget');
    if (key.pair.decryptsUntil !== null && key.pair.decryptsUntil <= this.#clock.now()) key = undefined;
    if (!key) throw new UnreadableCiphertext('the key it was encrypted to is retired; reload the widget');
    let plaintext: Uint8Array;
    try {
      plaintext = await this.#pool().decrypt(jwe, {
        kid: key.pair.kid,
        alg: key.alg,
        privateJwk: key.pair.privateJwk as JsonWebKey,
      });
    } catch (error) {
      if (error instanceof CardDecryptionBusy || error instanceof WorkerLost) throw new CardDecryptionBusy();
      throw new UnreadableCiphertext();
    }
    try {
      // The header decoded above is the one AES-GCM authenticated: the thread checked it.
      return { payload: JSON.parse(new TextDecoder().decode(plaintext)), header };
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
    const current = pairs[0];
    if (!current) {
      // First start: make the first key. Two processes racing here both succeed; both keys work.
      await this.#store.rotate(newCardKeyPair(this.#clock.now()), this.#clock.now());
      pairs = await this.#store.usable(this.#clock.now());
    } else if (current.decryptsUntil === null && algOfKey(current.publicJwk) === JWE_RSA) {
      // An installation from before P-256 keys (decision 0250): one process adds the EC key;
      // the others find the RSA key no longer current and take the EC key it added.
      const now = this.#clock.now();
      await this.#store.rotate(newCardKeyPair(now), now + RSA_UPGRADE_GRACE_MS, current.kid);
      pairs = await this.#store.usable(this.#clock.now());
    }
    this.#keys = pairs.map((pair) => ({ pair, alg: algOfKey(pair.publicJwk) }));
    this.#loadedAt = this.#clock.now();
  }
}

/**
 * A new card-encryption key pair: P-256 for ECDH-ES+A256KW (decision 0250); RSA-OAEP-256
 * (2048 bits) only where a test stands for an installation from before it.
 */
export function newCardKeyPair(now: number, alg: CardJweAlg = JWE_ECDH): StoredKeyPair {
  const { publicKey, privateKey } =
    alg === JWE_ECDH
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    kid: `ck_${randomBase62(16)}`,
    publicJwk: publicKey.export({ format: 'jwk' }) as JWK,
    privateJwk: privateKey.export({ format: 'jwk' }) as JWK,
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

/** The current card-encryption key cannot be retired: a new one must be made current first. */
export class CurrentCardKey extends Error {
  constructor(kid: string) {
    super(`${kid} is the current key: rotate first, then retire it.`);
  }
}
