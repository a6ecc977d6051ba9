import type { Kysely } from 'kysely';
import type { ChargebackStore, DueDispute } from '../../domain/chargebacks.ts';
import type { EventDraft } from '../../domain/events.ts';
import type { TransactionWithRefunds } from '../../domain/transaction-queries.ts';
import { DISPUTABLE_STATUSES, type Refund, type Transaction, TX_STATUS } from '../../domain/transactions.ts';
import type { AccountId } from '../../ids.ts';
import type { Database } from '../schema.ts';
import { appendEvents } from './events.ts';
import { selectRefunds } from './refunds.ts';
import { toTransaction } from './transactions.ts';

export class ChargebacksRepository implements ChargebackStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  record(
    dispute: DueDispute,
    now: number,
    events: (after: Transaction, refunds: Refund[]) => EventDraft[],
  ): Promise<TransactionWithRefunds | null> {
    return this.#db.transaction().execute(async (trx) => {
      // chargeback = 0 in the condition: of several processes seeing the same due dispute,
      // exactly one records it and writes its event.
      const row = await trx
        .updateTable('transactions')
        .set({ chargeback: 1, status: TX_STATUS.chargeback, updated_at: now })
        .where('account_id', '=', dispute.accountId)
        .where('id', '=', dispute.transactionId)
        .where('chargeback', '=', 0)
        .where('status', 'in', DISPUTABLE_STATUSES)
        .returningAll()
        .executeTakeFirst();
      if (!row) return null;
      const transaction = toTransaction(row);
      const refunds = transaction.refundedAmount > 0 ? await selectRefunds(trx, dispute.accountId, [row.id]) : [];
      await appendEvents(trx, events(transaction, refunds), now);
      return { transaction, refunds };
    });
  }

  reinstate(
    dispute: DueDispute,
    now: number,
    events: (after: Transaction, refunds: Refund[]) => EventDraft[],
  ): Promise<TransactionWithRefunds | null> {
    return this.#db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('transactions')
        .set((eb) => ({
          chargeback: 0,
          // Back to what the refunds made it before the chargeback.
          status: eb
            .case()
            .when('refunded_amount', '=', 0)
            .then(eb.lit(TX_STATUS.settled))
            .when('refunded_amount', '>=', eb.ref('amount'))
            .then(eb.lit(TX_STATUS.refunded))
            .else(eb.lit(TX_STATUS.partiallyRefunded))
            .end(),
          updated_at: now,
        }))
        .where('account_id', '=', dispute.accountId)
        .where('id', '=', dispute.transactionId)
        .where('chargeback', '=', 1)
        .where('status', '=', TX_STATUS.chargeback)
        .returningAll()
        .executeTakeFirst();
      if (!row) return null;
      const transaction = toTransaction(row);
      const refunds = transaction.refundedAmount > 0 ? await selectRefunds(trx, dispute.accountId, [row.id]) : [];
      await appendEvents(trx, events(transaction, refunds), now);
      return { transaction, refunds };
    });
  }

  /** A worker's query, so it spans accounts; each dispute is then recorded scoped by its account. */
  async dueSandboxDisputes(now: number, limit: number): Promise<DueDispute[]> {
    const rows = await this.#db
      .selectFrom('transactions')
      .select(['account_id', 'id'])
      .where('dispute_at', '<=', now)
      .where('mode', '=', 'sandbox')
      .where('chargeback', '=', 0)
      .where('status', 'in', DISPUTABLE_STATUSES)
      .orderBy('dispute_at')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ accountId: row.account_id as AccountId, transactionId: row.id }));
  }
}
