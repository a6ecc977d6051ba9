import type { Kysely, UpdateQueryBuilder, UpdateResult } from 'kysely';
import type { ChargebackStore, DueDispute } from '../../domain/chargebacks.ts';
import type { EventDraft } from '../../domain/events.ts';
import type { TransactionWithRefunds } from '../../domain/transaction-queries.ts';
import { DISPUTABLE_STATUSES, type Refund, type Transaction, TX_STATUS } from '../../domain/transactions.ts';
import type { Database } from '../schema.ts';
import { appendEvents } from './events.ts';
import { selectRefunds } from './refunds.ts';
import { toTransaction } from './transactions.ts';

type TransactionUpdate = UpdateQueryBuilder<Database, 'transactions', 'transactions', UpdateResult>;

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
    // chargeback = 0 in the condition: of several processes seeing the same due dispute,
    // exactly one records it and writes its event.
    return this.#change(dispute, now, events, (update) =>
      update
        .set({ chargeback: 1, status: TX_STATUS.chargeback, updated_at: now })
        .where('chargeback', '=', 0)
        .where('status', 'in', DISPUTABLE_STATUSES),
    );
  }

  reinstate(
    dispute: DueDispute,
    now: number,
    events: (after: Transaction, refunds: Refund[]) => EventDraft[],
  ): Promise<TransactionWithRefunds | null> {
    return this.#change(dispute, now, events, (update) =>
      update
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
        .where('chargeback', '=', 1)
        .where('status', '=', TX_STATUS.chargeback),
    );
  }

  lost(
    dispute: DueDispute,
    now: number,
    events: (after: Transaction, refunds: Refund[]) => EventDraft[],
  ): Promise<TransactionWithRefunds | null> {
    return this.#change(dispute, now, events, (update) =>
      update.set({ updated_at: now }).where('chargeback', '=', 1).where('status', '=', TX_STATUS.chargeback),
    );
  }

  /** One compare-and-set UPDATE of the disputed transaction, its refunds and the events, in one database transaction. */
  #change(
    dispute: DueDispute,
    now: number,
    events: (after: Transaction, refunds: Refund[]) => EventDraft[],
    change: (update: TransactionUpdate) => TransactionUpdate,
  ): Promise<TransactionWithRefunds | null> {
    return this.#db.transaction().execute(async (trx) => {
      const update = trx
        .updateTable('transactions')
        .where('account_id', '=', dispute.accountId)
        .where('id', '=', dispute.transactionId);
      const row = await change(update).returningAll().executeTakeFirst();
      if (!row) return null;
      const transaction = toTransaction(row);
      const refunds =
        transaction.refundedAmount > 0 ? await selectRefunds(trx, dispute.accountId, [transaction.id]) : [];
      await appendEvents(trx, events(transaction, refunds), now);
      return { transaction, refunds };
    });
  }

  /** A worker's query, so it spans accounts; each dispute is then recorded scoped by its account. */
  async dueSandboxDisputesAcrossAccounts(now: number, limit: number): Promise<DueDispute[]> {
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
    return rows.map((row) => ({ accountId: row.account_id, transactionId: row.id }));
  }
}
