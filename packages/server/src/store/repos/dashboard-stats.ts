import { type Kysely, sql } from 'kysely';
import type { DaySettled, SummaryStore } from '../../domain/dashboard/summary.ts';
import type { Mode } from '../../domain/intents.ts';
import { CAPTURED_STATUSES, TX_STATUS } from '../../domain/transactions.ts';
import type { Database } from '../schema.ts';

const DAY_MS = 86_400_000;

/** Aggregates over an account's transactions for the dashboard's home page. */
export class DashboardStatsRepository implements SummaryStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async settledPerDay(accountId: string, mode: Mode, since: number): Promise<DaySettled[]> {
    // Integer division on both engines (bigint / integer on PostgreSQL): the UTC day number.
    const day = sql<number>`created_at / ${sql.lit(DAY_MS)}`;
    const rows = await this.#db
      .selectFrom('transactions')
      .select([
        day.as('day'),
        (eb) => eb.fn.sum<number>('amount').as('volume'),
        (eb) => eb.fn.countAll<number>().as('n'),
      ])
      .where('account_id', '=', accountId)
      .where('mode', '=', mode)
      .where('created_at', '>=', since)
      .where('status', 'in', [...CAPTURED_STATUSES])
      .groupBy(day)
      .execute();
    return rows.map((row) => ({ day: Number(row.day) * DAY_MS, amount: Number(row.volume), count: Number(row.n) }));
  }

  async outcomes(accountId: string, mode: Mode, since: number): Promise<{ succeeded: number; failed: number }> {
    const rows = await this.#db
      .selectFrom('transactions')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('account_id', '=', accountId)
      .where('mode', '=', mode)
      .where('created_at', '>=', since)
      .where('status', '!=', TX_STATUS.pending)
      .groupBy('status')
      .execute();
    let succeeded = 0;
    let failed = 0;
    for (const row of rows) {
      if ((CAPTURED_STATUSES as readonly number[]).includes(row.status)) succeeded += Number(row.n);
      else failed += Number(row.n);
    }
    return { succeeded, failed };
  }
}
