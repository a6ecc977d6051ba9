import { type Kysely, type SqlBool, sql } from 'kysely';
import {
  INTENT_STATUS_OF,
  PAID_STATUS_OF,
  type PaymentFilter,
  type PaymentListStore,
} from '../../domain/dashboard/payment-list.ts';
import type { Page, PaymentIntent } from '../../domain/intents.ts';
import type { Transaction } from '../../domain/transactions.ts';
import type { AccountId, IntentId, TransactionId } from '../../ids.ts';
import { toPage } from '../keyset.ts';
import type { Database } from '../schema.ts';
import { toIntent } from './intents.ts';
import { toTransaction } from './transactions.ts';

/**
 * The dashboard's Payments list: payment intents of one mode, newest first, with the
 * indexes of migration 0050 (account, mode, created_at, id) behind every page, and of 0161
 * (the same, of one rare status) behind a filter by one of those statuses.
 */
export class PaymentListRepository implements PaymentListStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async listIntents(
    accountId: AccountId,
    filter: PaymentFilter,
    limit: number,
    after?: { createdAt: number; id: string },
  ): Promise<Page<PaymentIntent>> {
    let query = this.#db
      .selectFrom('payment_intents')
      .selectAll('payment_intents')
      .where('payment_intents.account_id', '=', accountId)
      .where('payment_intents.mode', '=', filter.mode)
      .orderBy('payment_intents.created_at', 'desc')
      .orderBy('payment_intents.id', 'desc')
      .limit(limit + 1);
    if (filter.status !== undefined) {
      const intentStatus = INTENT_STATUS_OF[filter.status];
      const paidStatus = PAID_STATUS_OF[filter.status];
      // A literal, not a parameter: the planners match it to the partial index of a rare status
      // (migration 0161, decision 0263); the statuses are a closed list of ours.
      if (intentStatus !== undefined) query = query.where('payment_intents.status', '=', sql.lit(intentStatus));
      if (paidStatus !== undefined) {
        // What became of the money is the paid attempt's status: one primary-key probe a row.
        query = query
          .where('payment_intents.status', '=', 'succeeded')
          .where((eb) =>
            eb.exists(
              eb
                .selectFrom('transactions')
                .select(sql.lit(1).as('one'))
                .whereRef('transactions.id', '=', 'payment_intents.last_transaction_id')
                .whereRef('transactions.account_id', '=', 'payment_intents.account_id')
                .where('transactions.status', '=', paidStatus),
            ),
          );
      }
    }
    if (filter.amountMin !== undefined) query = query.where('payment_intents.amount', '>=', filter.amountMin);
    if (filter.amountMax !== undefined) query = query.where('payment_intents.amount', '<=', filter.amountMax);
    if (filter.createdFrom !== undefined) query = query.where('payment_intents.created_at', '>=', filter.createdFrom);
    if (filter.createdTo !== undefined) query = query.where('payment_intents.created_at', '<=', filter.createdTo);
    if (filter.reference !== undefined) query = query.where('payment_intents.reference', '=', filter.reference);
    if (filter.externalid !== undefined) query = query.where('payment_intents.externalid', '=', filter.externalid);
    if (filter.last4 !== undefined) {
      const last4 = filter.last4;
      query = query.where((eb) =>
        eb.exists(
          eb
            .selectFrom('transactions')
            .select(sql.lit(1).as('one'))
            .whereRef('transactions.payment_intent_id', '=', 'payment_intents.id')
            .whereRef('transactions.account_id', '=', 'payment_intents.account_id')
            .where('transactions.card_last4', '=', last4),
        ),
      );
    }
    if (after) {
      query = query.where(
        sql<SqlBool>`(payment_intents.created_at < ${after.createdAt} or (payment_intents.created_at = ${after.createdAt} and payment_intents.id < ${after.id}))`,
      );
    }
    return toPage(await query.execute(), limit, toIntent);
  }

  async findMany(accountId: AccountId, ids: readonly TransactionId[]): Promise<Transaction[]> {
    if (ids.length === 0) return [];
    const rows = await this.#db
      .selectFrom('transactions')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', 'in', [...ids])
      .execute();
    return rows.map(toTransaction);
  }

  async attemptCounts(accountId: AccountId, intentIds: readonly IntentId[]): Promise<Map<string, number>> {
    if (intentIds.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom('transactions')
      .select(['payment_intent_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('account_id', '=', accountId)
      .where('payment_intent_id', 'in', [...intentIds])
      .groupBy('payment_intent_id')
      .execute();
    return new Map(rows.map((row) => [row.payment_intent_id, Number(row.n)]));
  }
}
