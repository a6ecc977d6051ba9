import type { Kysely, Selectable } from 'kysely';
import type { AuditEvent } from '../../domain/audit.ts';
import type { EventDraft } from '../../domain/events.ts';
import type { Page } from '../../domain/intents.ts';
import type { RefundFilter, RefundStore } from '../../domain/refunds.ts';
import type { RefundReader, TransactionWithRefunds } from '../../domain/transaction-queries.ts';
import {
  REFUNDABLE_STATUSES,
  type Refund,
  type RefundReason,
  type RefundStatus,
  type Transaction,
  TX_STATUS,
} from '../../domain/transactions.ts';
import type { AccountId, IntentId, TransactionId } from '../../ids.ts';
import { olderThan, toPage } from '../keyset.ts';
import type { Database, RefundsTable } from '../schema.ts';
import { insertAuditEvent } from './audit.ts';
import { appendEvents } from './events.ts';
import { toTransaction } from './transactions.ts';

export function toRefund(row: Selectable<RefundsTable>): Refund {
  return {
    id: row.id,
    accountId: row.account_id,
    transactionId: row.transaction_id as TransactionId,
    amount: row.amount,
    currency: row.currency as 'USD',
    createdAt: row.created_at,
    status: row.status as Refund['status'],
    processorRef: row.processor_ref,
    paymentIntentId: row.payment_intent_id as IntentId | null,
    reason: row.reason as RefundReason | null,
    metadata: JSON.parse(row.metadata) as Record<string, string>,
  };
}

/** Refunds of these transactions of the account, oldest first. Usable inside a database transaction. */
export async function selectRefunds(
  db: Kysely<Database>,
  accountId: AccountId,
  transactionIds: readonly TransactionId[],
): Promise<Refund[]> {
  if (transactionIds.length === 0) return [];
  const rows = await db
    .selectFrom('refunds')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('transaction_id', 'in', transactionIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toRefund);
}

export class RefundsRepository implements RefundStore, RefundReader {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async find(accountId: AccountId, id: string): Promise<Refund | undefined> {
    const row = await this.#db
      .selectFrom('refunds')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toRefund(row);
  }

  /** Newest first, by (created_at, id) after `after`; served by refunds_account_created / refunds_intent / refunds_transaction. */
  async list(accountId: AccountId, filter: RefundFilter, limit: number, after?: Refund): Promise<Page<Refund>> {
    let query = this.#db.selectFrom('refunds').selectAll().where('account_id', '=', accountId);
    if (filter.transaction !== undefined) query = query.where('transaction_id', '=', filter.transaction);
    if (filter.paymentIntent !== undefined) query = query.where('payment_intent_id', '=', filter.paymentIntent);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (after) query = query.where(olderThan(after));
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
    return toPage(rows, limit, toRefund);
  }

  forTransactions(accountId: AccountId, transactionIds: readonly TransactionId[]): Promise<Refund[]> {
    return selectRefunds(this.#db, accountId, transactionIds);
  }

  async findByIdempotencyKey(
    accountId: AccountId,
    transactionId: string,
    key: string,
    since: number,
  ): Promise<Refund | undefined> {
    const row = await this.#db
      .selectFrom('refunds')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('idempotency_key', '=', key)
      .where('transaction_id', '=', transactionId)
      .where('created_at', '>=', since)
      .executeTakeFirst();
    return row && toRefund(row);
  }

  refund(
    refund: Refund,
    events: (after: Transaction, refunds: Refund[]) => EventDraft[],
    idempotencyKey?: string,
    audit?: AuditEvent,
  ): Promise<TransactionWithRefunds | null> {
    return this.#db.transaction().execute(async (trx) => {
      // One statement decides: concurrent refunds on any number of processes can never sum
      // past the amount paid. SET sees the old row, so the CASE tests the sum after this one.
      const row = await trx
        .updateTable('transactions')
        .set((eb) => ({
          refunded_amount: eb('refunded_amount', '+', refund.amount),
          status: eb
            .case()
            .when(eb('refunded_amount', '+', refund.amount), '=', eb.ref('amount'))
            .then(eb.lit(TX_STATUS.refunded))
            .else(eb.lit(TX_STATUS.partiallyRefunded))
            .end(),
          updated_at: refund.createdAt,
        }))
        .where('account_id', '=', refund.accountId)
        .where('id', '=', refund.transactionId)
        .where('status', 'in', REFUNDABLE_STATUSES)
        .where('chargeback', '=', 0)
        .where((eb) => eb(eb('refunded_amount', '+', refund.amount), '<=', eb.ref('amount')))
        .returningAll()
        .executeTakeFirst();
      if (!row) return null;
      await trx
        .insertInto('refunds')
        .values({
          id: refund.id,
          account_id: refund.accountId,
          transaction_id: refund.transactionId,
          amount: refund.amount,
          currency: refund.currency,
          created_at: refund.createdAt,
          status: refund.status,
          processor_ref: refund.processorRef,
          idempotency_key: idempotencyKey ?? null,
          payment_intent_id: refund.paymentIntentId,
          reason: refund.reason,
          metadata: JSON.stringify(refund.metadata),
        })
        .execute();
      const transaction = toTransaction(row);
      const refunds = await selectRefunds(trx, refund.accountId, [refund.transactionId]);
      await appendEvents(trx, events(transaction, refunds), refund.createdAt);
      if (audit) await insertAuditEvent(trx, audit);
      return { transaction, refunds };
    });
  }

  settle(
    refund: Refund,
    to: { status: RefundStatus; processorRef: string | null; now: number },
    events: (after: Transaction, refunds: Refund[]) => EventDraft[],
  ): Promise<TransactionWithRefunds | null> {
    return this.#db.transaction().execute(async (trx) => {
      const from: RefundStatus[] = to.status === 'failed' ? ['pending', 'succeeded'] : ['pending'];
      const moved = await trx
        .updateTable('refunds')
        .set({ status: to.status, processor_ref: to.processorRef ?? refund.processorRef })
        .where('id', '=', refund.id)
        .where('account_id', '=', refund.accountId)
        .where('status', 'in', from)
        .executeTakeFirst();
      if (moved.numUpdatedRows === 0n) return null;
      let update = trx.updateTable('transactions').set({ updated_at: to.now });
      if (to.status === 'failed') {
        // Nothing went back to the shopper: the amount is refundable again.
        update = update.set((eb) => ({
          refunded_amount: eb('refunded_amount', '-', refund.amount),
          status: eb
            .case()
            .when('status', 'in', [TX_STATUS.refunded, TX_STATUS.partiallyRefunded])
            .then(
              eb
                .case()
                .when(eb('refunded_amount', '-', refund.amount), '=', 0)
                .then(eb.lit(TX_STATUS.settled))
                .else(eb.lit(TX_STATUS.partiallyRefunded))
                .end(),
            )
            .else(eb.ref('status'))
            .end(),
        }));
      }
      const row = await update
        .where('account_id', '=', refund.accountId)
        .where('id', '=', refund.transactionId)
        .returningAll()
        .executeTakeFirstOrThrow();
      const transaction = toTransaction(row);
      const refunds = await selectRefunds(trx, refund.accountId, [refund.transactionId]);
      await appendEvents(trx, events(transaction, refunds), to.now);
      return { transaction, refunds };
    });
  }

  async unsentAcrossAccounts(
    createdBefore: number,
    after: Pick<Refund, 'createdAt' | 'id'> | null,
    limit: number,
  ): Promise<Refund[]> {
    let query = this.#db
      .selectFrom('refunds')
      .selectAll()
      .where('status', '=', 'pending')
      .where('processor_ref', 'is', null)
      .where('created_at', '<', createdBefore);
    if (after) {
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '>', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)]),
        ]),
      );
    }
    const rows = await query.orderBy('created_at').orderBy('id').limit(limit).execute();
    return rows.map(toRefund);
  }

  async findForNoticeAcrossAccounts(
    by: { refundId: string } | { processor: string; processorRef: string },
  ): Promise<{ refund: Refund; processor: string; paymentRef: string | null } | undefined> {
    const row = await this.#db
      .selectFrom('refunds')
      .innerJoin('transactions', 'transactions.id', 'refunds.transaction_id')
      .selectAll('refunds')
      .select(['transactions.processor as tx_processor', 'transactions.processor_payment_ref as tx_payment_ref'])
      .where((eb) =>
        'refundId' in by
          ? eb('refunds.id', '=', by.refundId)
          : eb.and([
              eb('refunds.processor_ref', '=', by.processorRef),
              eb('transactions.processor', '=', by.processor),
            ]),
      )
      .executeTakeFirst();
    if (!row) return undefined;
    const { tx_processor, tx_payment_ref, ...refund } = row;
    return { refund: toRefund(refund), processor: tx_processor, paymentRef: tx_payment_ref };
  }

  async unansweredOfAcrossAccounts(processor: string, paymentRef: string): Promise<Refund[]> {
    const rows = await this.#db
      .selectFrom('refunds')
      .innerJoin('transactions', 'transactions.id', 'refunds.transaction_id')
      .selectAll('refunds')
      .where('transactions.processor', '=', processor)
      .where('transactions.processor_payment_ref', '=', paymentRef)
      .where('refunds.status', '=', 'pending')
      .where('refunds.processor_ref', 'is', null)
      .orderBy('refunds.created_at')
      .execute();
    return rows.map(toRefund);
  }
}
