import { type Kysely, type Selectable, sql } from 'kysely';
import type { PasswordStore } from '../../domain/dashboard/passwords.ts';
import type { Session, SessionStore } from '../../domain/dashboard/sessions.ts';
import type { DashboardSessionsTable, Database } from '../schema.ts';

const toSession = (row: Selectable<DashboardSessionsTable>): Session => ({
  digest: row.digest,
  accountId: row.account_id,
  csrfToken: row.csrf_token,
  mode: row.mode,
  createdAt: row.created_at,
  lastSeenAt: row.last_seen_at,
});

/** Dashboard passwords, sessions (by digest) and the failed sign-ins the rate limit counts. */
export class DashboardRepository implements PasswordStore, SessionStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async setPassword(accountId: string, hash: string, now: number): Promise<boolean> {
    const account = await this.#db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
    if (!account) return false;
    await this.#db
      .insertInto('dashboard_passwords')
      .values({ account_id: accountId, hash, updated_at: now })
      .onConflict((oc) => oc.column('account_id').doUpdateSet({ hash, updated_at: now }))
      .execute();
    return true;
  }

  async passwordsByEmail(email: string): Promise<{ accountId: string; hash: string }[]> {
    const rows = await this.#db
      .selectFrom('dashboard_passwords')
      .innerJoin('accounts', 'accounts.id', 'dashboard_passwords.account_id')
      .select(['dashboard_passwords.account_id', 'dashboard_passwords.hash'])
      .where(sql`lower(accounts.email)`, '=', email)
      .orderBy('accounts.created_at')
      .limit(20)
      .execute();
    return rows.map((row) => ({ accountId: row.account_id, hash: row.hash }));
  }

  async insertSession(session: Session): Promise<void> {
    await this.#db
      .insertInto('dashboard_sessions')
      .values({
        digest: session.digest,
        account_id: session.accountId,
        csrf_token: session.csrfToken,
        mode: session.mode,
        created_at: session.createdAt,
        last_seen_at: session.lastSeenAt,
      })
      .execute();
  }

  async findSession(digest: string): Promise<Session | undefined> {
    const row = await this.#db
      .selectFrom('dashboard_sessions')
      .selectAll()
      .where('digest', '=', digest)
      .executeTakeFirst();
    return row && toSession(row);
  }

  async updateSession(digest: string, changes: { lastSeenAt?: number; mode?: 'live' | 'sandbox' }): Promise<void> {
    await this.#db
      .updateTable('dashboard_sessions')
      .set({
        ...(changes.lastSeenAt !== undefined ? { last_seen_at: changes.lastSeenAt } : {}),
        ...(changes.mode !== undefined ? { mode: changes.mode } : {}),
      })
      .where('digest', '=', digest)
      .execute();
  }

  async deleteSession(digest: string): Promise<void> {
    await this.#db.deleteFrom('dashboard_sessions').where('digest', '=', digest).execute();
  }
}
