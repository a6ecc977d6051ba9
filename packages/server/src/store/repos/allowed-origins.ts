import type { Kysely } from 'kysely';
import type { AllowedOriginsStore } from '../../domain/allowed-origins.ts';
import type { AuditEvent } from '../../domain/audit.ts';
import type { AccountId } from '../../ids.ts';
import type { Database } from '../schema.ts';
import { insertAuditEvent } from './audit.ts';

/** accounts.allowed_origins, on its own: the accounts repository stays about identity and keys. */
export class AllowedOriginsRepository implements AllowedOriginsStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  set(accountId: AccountId, origins: string[], audit?: AuditEvent): Promise<boolean> {
    return this.#audited(audit, async (db) => {
      const result = await db
        .updateTable('accounts')
        .set({ allowed_origins: JSON.stringify(origins) })
        .where('id', '=', accountId)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    });
  }

  /** `write` alone, or with `audit` written in its transaction when it changed something. */
  async #audited(audit: AuditEvent | undefined, write: (db: Kysely<Database>) => Promise<boolean>): Promise<boolean> {
    if (!audit) return write(this.#db);
    return this.#db.transaction().execute(async (trx) => {
      const changed = await write(trx);
      if (changed) await insertAuditEvent(trx, audit);
      return changed;
    });
  }

  replace(accountId: AccountId, expected: readonly string[], origins: string[], audit?: AuditEvent): Promise<boolean> {
    return this.#audited(audit, async (db) => {
      // The stored text is always JSON.stringify of the list, so equal lists are equal text.
      const result = await db
        .updateTable('accounts')
        .set({ allowed_origins: JSON.stringify(origins) })
        .where('id', '=', accountId)
        .where('allowed_origins', '=', JSON.stringify(expected))
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    });
  }
}
