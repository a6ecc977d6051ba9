import { type Kysely, type Selectable, sql } from 'kysely';
import type { AuditEvent } from '../../domain/audit.ts';
import type { PasswordStore } from '../../domain/dashboard/passwords.ts';
import type { Session, SessionStore } from '../../domain/dashboard/sessions.ts';
import type { AccountId } from '../../ids.ts';
import type { DashboardSessionsTable, Database } from '../schema.ts';
import { insertAuditEvent } from './audit.ts';

const toSession = (row: Selectable<DashboardSessionsTable>): Session => ({
  digest: row.digest,
  accountId: row.account_id,
  csrfToken: row.csrf_token,
  mode: row.mode,
  createdAt: row.created_at,
  lastSeenAt: row.last_seen_at,
  passwordAt: row.password_at ?? row.created_at,
});

const sessionRow = (session: Session) => ({
  digest: session.digest,
  account_id: session.accountId,
  csrf_token: session.csrfToken,
  mode: session.mode,
  created_at: session.createdAt,
  last_seen_at: session.lastSeenAt,
  password_at: session.passwordAt,
});

/** Dashboard passwords, sessions (by digest) and the failed sign-ins the rate limit counts. */
export class DashboardRepository implements PasswordStore, SessionStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** The password, every session of the account ended, and the audit events: one transaction. */
  async setPassword(accountId: AccountId, hash: string, now: number, audit: AuditEvent[] = []): Promise<boolean> {
    return this.#db.transaction().execute(async (trx) => {
      const account = await trx.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
      if (!account) return false;
      await trx
        .insertInto('dashboard_passwords')
        .values({ account_id: accountId, hash, updated_at: now })
        .onConflict((oc) => oc.column('account_id').doUpdateSet({ hash, updated_at: now }))
        .execute();
      const ended = await trx.deleteFrom('dashboard_sessions').where('account_id', '=', accountId).executeTakeFirst();
      for (const event of audit) {
        await insertAuditEvent(trx, {
          ...event,
          detail: {
            ...event.detail,
            ...(event.action === 'sessions.ended' ? { sessions: Number(ended.numDeletedRows) } : {}),
          },
        });
      }
      return true;
    });
  }

  /** Ends every session of the account (all but `keep`), with its audit event in the same transaction. */
  async endSessions(accountId: AccountId, audit: AuditEvent, keep?: string): Promise<number> {
    return this.#db.transaction().execute(async (trx) => {
      let query = trx.deleteFrom('dashboard_sessions').where('account_id', '=', accountId);
      if (keep) query = query.where('digest', '!=', keep);
      const ended = Number((await query.executeTakeFirst()).numDeletedRows);
      await insertAuditEvent(trx, { ...audit, detail: { ...audit.detail, sessions: ended } });
      return ended;
    });
  }

  async upgradePassword(accountId: AccountId, oldHash: string, newHash: string): Promise<void> {
    await this.#db
      .updateTable('dashboard_passwords')
      .set({ hash: newHash })
      .where('account_id', '=', accountId)
      .where('hash', '=', oldHash)
      .execute();
  }

  /** The hash of an account's password, for a signed-in merchant confirming it. */
  async passwordOf(accountId: AccountId): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('dashboard_passwords')
      .select('hash')
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row?.hash;
  }

  /** A session and its audit event (a sign-in) in one transaction. */
  async insertSessionAudited(session: Session, audit: AuditEvent): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await trx.insertInto('dashboard_sessions').values(sessionRow(session)).execute();
      await insertAuditEvent(trx, audit);
    });
  }

  /** A sign-out and its audit event in one transaction. */
  async deleteSessionAudited(digest: string, audit: AuditEvent): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await trx.deleteFrom('dashboard_sessions').where('digest', '=', digest).execute();
      await insertAuditEvent(trx, audit);
    });
  }

  async passwordsByEmail(email: string): Promise<{ accountId: AccountId; hash: string }[]> {
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
    await this.#db.insertInto('dashboard_sessions').values(sessionRow(session)).execute();
  }

  async findSession(digest: string): Promise<Session | undefined> {
    const row = await this.#db
      .selectFrom('dashboard_sessions')
      .selectAll()
      .where('digest', '=', digest)
      .executeTakeFirst();
    return row && toSession(row);
  }

  async updateSession(
    digest: string,
    changes: { lastSeenAt?: number; mode?: 'live' | 'sandbox'; passwordAt?: number },
  ): Promise<void> {
    await this.#db
      .updateTable('dashboard_sessions')
      .set({
        ...(changes.lastSeenAt !== undefined ? { last_seen_at: changes.lastSeenAt } : {}),
        ...(changes.mode !== undefined ? { mode: changes.mode } : {}),
        ...(changes.passwordAt !== undefined ? { password_at: changes.passwordAt } : {}),
      })
      .where('digest', '=', digest)
      .execute();
  }

  async deleteSession(digest: string): Promise<void> {
    await this.#db.deleteFrom('dashboard_sessions').where('digest', '=', digest).execute();
  }
}
