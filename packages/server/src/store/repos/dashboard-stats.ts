import type { Kysely } from 'kysely';
import type { DayTotals, SummaryStore } from '../../domain/dashboard/summary.ts';
import type { Mode } from '../../domain/intents.ts';
import type { AccountId } from '../../ids.ts';
import type { Database } from '../schema.ts';

const DAY_MS = 86_400_000;

/**
 * The dashboard home's figures, from the daily totals the database keeps with every
 * transaction (migration 0160, decision 0261): at most a row per day and slot, however many
 * payments the days had.
 */
export class DashboardStatsRepository implements SummaryStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async totalsPerDay(accountId: AccountId, mode: Mode, since: number): Promise<DayTotals[]> {
    const rows = await this.#db
      .selectFrom('daily_totals')
      .select((eb) => [
        'day',
        eb.fn.sum<number>('settled_count').as('settled_count'),
        eb.fn.sum<number>('settled_amount').as('settled_amount'),
        eb.fn.sum<number>('unpaid_count').as('unpaid_count'),
        eb.fn.sum<number>('refunded_amount').as('refunded_amount'),
        eb.fn.sum<number>('chargeback_count').as('chargeback_count'),
        eb.fn.sum<number>('chargeback_amount').as('chargeback_amount'),
      ])
      .where('account_id', '=', accountId)
      .where('mode', '=', mode)
      .where('day', '>=', Math.floor(since / DAY_MS))
      .groupBy('day')
      .orderBy('day')
      .execute();
    // PostgreSQL answers sums of bigint as text.
    return rows.map((row) => ({
      day: Number(row.day) * DAY_MS,
      settledCount: Number(row.settled_count),
      settledAmount: Number(row.settled_amount),
      unpaidCount: Number(row.unpaid_count),
      refundedAmount: Number(row.refunded_amount),
      chargebackCount: Number(row.chargeback_count),
      chargebackAmount: Number(row.chargeback_amount),
    }));
  }
}
