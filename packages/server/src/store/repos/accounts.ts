import type { Kysely, Selectable } from 'kysely';
import type { Account, AccountStatus, AccountStore, SecretKeyRecord } from '../../domain/accounts.ts';
import type { AuditEvent } from '../../domain/audit.ts';
import type { AccountId } from '../../ids.ts';
import type { HotPaths } from '../hot-paths.ts';
import type { AccountsTable, Database, SecretKeysTable } from '../schema.ts';
import { insertAuditEvent } from './audit.ts';

function toAccount(row: Selectable<AccountsTable>): Account {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    status: row.status,
    pricing: { bps: row.fee_bps, fixedMinor: row.fee_fixed_minor },
    allowedOrigins: JSON.parse(row.allowed_origins) as string[],
    clientKey: row.client_key,
    createdAt: row.created_at,
  };
}

function toKey(row: Selectable<SecretKeysTable>): SecretKeyRecord {
  return {
    digest: row.digest,
    accountId: row.account_id,
    last4: row.last4,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

const keyRow = (key: SecretKeyRecord) => ({
  digest: key.digest,
  account_id: key.accountId,
  last4: key.last4,
  created_at: key.createdAt,
  expires_at: key.expiresAt,
});

export class AccountsRepository implements AccountStore {
  readonly #db: Kysely<Database>;
  readonly #hot: HotPaths | undefined;
  constructor(db: Kysely<Database>, hot?: HotPaths) {
    this.#db = db;
    this.#hot = hot;
  }

  async insert(account: Account, key: SecretKeyRecord): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await trx
        .insertInto('accounts')
        .values({
          id: account.id,
          name: account.name,
          email: account.email,
          status: account.status,
          fee_bps: account.pricing.bps,
          fee_fixed_minor: account.pricing.fixedMinor,
          allowed_origins: JSON.stringify(account.allowedOrigins),
          client_key: account.clientKey,
          created_at: account.createdAt,
        })
        .execute();
      await trx.insertInto('secret_keys').values(keyRow(key)).execute();
    });
  }

  /** On every authenticated request (the account's status must be current): a hot path. */
  async find(id: AccountId): Promise<Account | undefined> {
    if (this.#hot) {
      const found = await this.#hot.findAccount(id);
      return found && toAccount(found);
    }
    const row = await this.#db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toAccount(row);
  }

  async findByClientKey(clientKey: string): Promise<Account | undefined> {
    if (this.#hot) {
      const found = await this.#hot.findAccountByClientKey(clientKey);
      return found && toAccount(found);
    }
    const row = await this.#db
      .selectFrom('accounts')
      .selectAll()
      .where('client_key', '=', clientKey)
      .executeTakeFirst();
    return row && toAccount(row);
  }

  async list(): Promise<Account[]> {
    const rows = await this.#db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map(toAccount);
  }

  async count(): Promise<number> {
    const row = await this.#db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async setStatus(id: AccountId, status: AccountStatus): Promise<boolean> {
    const result = await this.#db.updateTable('accounts').set({ status }).where('id', '=', id).executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async findKey(digest: string): Promise<SecretKeyRecord | undefined> {
    const row = await this.#db.selectFrom('secret_keys').selectAll().where('digest', '=', digest).executeTakeFirst();
    return row && toKey(row);
  }

  /** The account's keys, newest first (the dashboard shows their last 4). */
  async keysOf(accountId: AccountId): Promise<SecretKeyRecord[]> {
    const rows = await this.#db
      .selectFrom('secret_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map(toKey);
  }

  async replaceSecretKey(
    accountId: AccountId,
    key: SecretKeyRecord,
    graceUntil: number,
    audit?: AuditEvent,
  ): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      // Keys already dead are dropped; live ones get the grace period (or keep a shorter one).
      await trx
        .deleteFrom('secret_keys')
        .where('account_id', '=', accountId)
        .where('expires_at', '<=', key.createdAt)
        .execute();
      await trx
        .updateTable('secret_keys')
        .set({ expires_at: graceUntil })
        .where('account_id', '=', accountId)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', graceUntil)]))
        .execute();
      await trx.insertInto('secret_keys').values(keyRow(key)).execute();
      if (audit) await insertAuditEvent(trx, audit);
    });
  }
}
