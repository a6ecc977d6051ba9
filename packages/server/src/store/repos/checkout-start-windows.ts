import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';

/** Per-address counters of hosted-checkout intents, in the database so every process shares them. */
export class CheckoutStartWindowsRepository {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Adds one to the address's counter of the window starting at `windowStart`; answers the new count. */
  async increment(address: string, windowStart: number): Promise<number> {
    const row = await this.#db
      .insertInto('checkout_start_windows')
      .values({ address, window_start: windowStart, count: 1 })
      .onConflict((oc) =>
        oc.columns(['address', 'window_start']).doUpdateSet({ count: sql<number>`checkout_start_windows.count + 1` }),
      )
      .returning('count')
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async pruneBefore(windowStart: number): Promise<number> {
    const result = await this.#db
      .deleteFrom('checkout_start_windows')
      .where('window_start', '<', windowStart)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
