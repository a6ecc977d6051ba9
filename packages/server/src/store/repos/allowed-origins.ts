import type { Kysely } from 'kysely';
import type { AllowedOriginsStore } from '../../domain/allowed-origins.ts';
import type { Database } from '../schema.ts';

/** accounts.allowed_origins, on its own: the accounts repository stays about identity and keys. */
export class AllowedOriginsRepository implements AllowedOriginsStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async set(accountId: string, origins: string[]): Promise<boolean> {
    const result = await this.#db
      .updateTable('accounts')
      .set({ allowed_origins: JSON.stringify(origins) })
      .where('id', '=', accountId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async replace(accountId: string, expected: readonly string[], origins: string[]): Promise<boolean> {
    // The stored text is always JSON.stringify of the list, so equal lists are equal text.
    const result = await this.#db
      .updateTable('accounts')
      .set({ allowed_origins: JSON.stringify(origins) })
      .where('id', '=', accountId)
      .where('allowed_origins', '=', JSON.stringify(expected))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
