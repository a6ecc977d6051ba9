import type { Kysely, Selectable, Transaction } from 'kysely';
import type { AuditAction, AuditEvent, AuditOutcome, AuditStore } from '../../domain/audit.ts';
import type { AccountId } from '../../ids.ts';
import type { AuditEventsTable, Database } from '../schema.ts';

const toEvent = (row: Selectable<AuditEventsTable>): AuditEvent => ({
  id: row.id,
  accountId: row.account_id,
  action: row.action as AuditAction,
  actor: row.actor,
  clientNetwork: row.client_network,
  outcome: row.outcome as AuditOutcome,
  detail: row.detail ? (JSON.parse(row.detail) as Record<string, string | number>) : null,
  createdAt: Number(row.created_at),
});

/** Writes one event with `db`, a transaction of the action it records when there is one. */
export async function insertAuditEvent(db: Kysely<Database> | Transaction<Database>, event: AuditEvent): Promise<void> {
  await db
    .insertInto('audit_events')
    .values({
      id: event.id,
      account_id: event.accountId,
      action: event.action,
      actor: event.actor,
      client_network: event.clientNetwork,
      outcome: event.outcome,
      detail: event.detail ? JSON.stringify(event.detail) : null,
      created_at: event.createdAt,
    })
    .execute();
}

/** The audit trail: appended to, listed per account, pruned past its retention; never updated. */
export class AuditRepository implements AuditStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  record(event: AuditEvent): Promise<void> {
    return insertAuditEvent(this.#db, event);
  }

  async list(accountId: AccountId, options: { since?: number; limit: number }): Promise<AuditEvent[]> {
    let query = this.#db.selectFrom('audit_events').selectAll().where('account_id', '=', accountId);
    if (options.since !== undefined) query = query.where('created_at', '>=', options.since);
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
    return rows.map(toEvent);
  }

  async pruneBefore(time: number): Promise<number> {
    const result = await this.#db.deleteFrom('audit_events').where('created_at', '<', time).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
