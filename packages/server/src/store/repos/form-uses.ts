import type { Kysely } from 'kysely';
import type { FormUseStore } from '../../domain/dashboard/form-uses.ts';
import type { AccountId } from '../../ids.ts';
import type { Database } from '../schema.ts';

/** dashboard_form_uses: the claims of one-time form tokens, shared by every process. */
export class FormUsesRepository implements FormUseStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async claim(accountId: AccountId, token: string, sessionDigest: string, now: number): Promise<boolean> {
    // The primary key decides: of two posts racing, on either engine, one inserts and one does nothing.
    const inserted = await this.#db
      .insertInto('dashboard_form_uses')
      .values({ account_id: accountId, token, session_digest: sessionDigest, result: null, created_at: now })
      .onConflict((oc) => oc.columns(['account_id', 'token']).doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async result(accountId: AccountId, token: string): Promise<string | null | undefined> {
    const row = await this.#db
      .selectFrom('dashboard_form_uses')
      .select('result')
      .where('account_id', '=', accountId)
      .where('token', '=', token)
      .executeTakeFirst();
    return row?.result;
  }

  async finish(accountId: AccountId, token: string, result: string): Promise<void> {
    await this.#db
      .updateTable('dashboard_form_uses')
      .set({ result })
      .where('account_id', '=', accountId)
      .where('token', '=', token)
      .execute();
  }

  async release(accountId: AccountId, token: string): Promise<void> {
    await this.#db
      .deleteFrom('dashboard_form_uses')
      .where('account_id', '=', accountId)
      .where('token', '=', token)
      .where('result', 'is', null)
      .execute();
  }

  async purge(before: number): Promise<void> {
    await this.#db.deleteFrom('dashboard_form_uses').where('created_at', '<', before).execute();
  }
}
