import { type Kysely, sql } from 'kysely';
import { algOfKey } from '../../crypto/card-jwe.ts';
import type { EncryptionKeyStore, KeySummary, StoredKeyPair } from '../../crypto/card-keyring.ts';
import type { SecretBox } from '../../crypto/master-key.ts';
import type { Database } from '../schema.ts';
import { cardKeyAad, openColumn } from './sealed-secrets.ts';

export class EncryptionKeysRepository implements EncryptionKeyStore {
  readonly #db: Kysely<Database>;
  readonly #box: SecretBox;
  constructor(db: Kysely<Database>, box: SecretBox) {
    this.#db = db;
    this.#box = box;
  }

  async usable(now: number): Promise<StoredKeyPair[]> {
    const rows = await this.#currentFirst()
      .selectAll()
      .where((eb) => eb.or([eb('decrypts_until', 'is', null), eb('decrypts_until', '>', now)]))
      .execute();
    return rows.map((r) => ({
      kid: r.kid,
      publicJwk: JSON.parse(r.public_jwk),
      privateJwk: JSON.parse(openColumn(this.#box, r.private_jwk, cardKeyAad(r.kid), r.key_version)),
      createdAt: r.created_at,
      decryptsUntil: r.decrypts_until,
    }));
  }

  async retire(kid: string, at: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('encryption_keys')
      .set({ decrypts_until: at })
      .where('kid', '=', kid)
      .where('decrypts_until', 'is not', null)
      .where('decrypts_until', '>', at)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async list(): Promise<KeySummary[]> {
    const rows = await this.#currentFirst().select(['kid', 'public_jwk', 'created_at', 'decrypts_until']).execute();
    return rows.map((r) => ({
      kid: r.kid,
      alg: algOfKey(JSON.parse(r.public_jwk)),
      createdAt: r.created_at,
      decryptsUntil: r.decrypts_until,
    }));
  }

  /** The keys, the current one (no end date, the one widgets encrypt to) first, then newest first. */
  #currentFirst() {
    return this.#db
      .selectFrom('encryption_keys')
      .orderBy(sql`decrypts_until is null`, 'desc')
      .orderBy('created_at', 'desc')
      .orderBy('kid', 'desc');
  }

  async rotate(next: StoredKeyPair, previousDecryptUntil: number, replacing?: string): Promise<boolean> {
    const privateJwk = this.#box.seal(JSON.stringify(next.privateJwk), cardKeyAad(next.kid));
    return await this.#db
      .transaction()
      .execute(async (trx) => {
        const ended = await trx
          .updateTable('encryption_keys')
          .set({ decrypts_until: previousDecryptUntil })
          .where('decrypts_until', 'is', null)
          .returning('kid')
          .execute();
        // Another process replaced it first: its new key stands (the update is undone with the transaction).
        if (replacing !== undefined && !ended.some((row) => row.kid === replacing)) throw new AlreadyReplaced();
        await trx
          .insertInto('encryption_keys')
          .values({
            kid: next.kid,
            public_jwk: JSON.stringify(next.publicJwk),
            private_jwk: privateJwk.sealed,
            key_version: privateJwk.version,
            created_at: next.createdAt,
            decrypts_until: null,
          })
          .execute();
        return true;
      })
      .catch((error: unknown) => {
        if (error instanceof AlreadyReplaced) return false;
        throw error;
      });
  }
}

class AlreadyReplaced extends Error {}
