import { type Kysely, sql } from 'kysely';
import type { WindowCounters } from '../../domain/window-counters.ts';
import type { Database } from '../schema.ts';

/**
 * Fixed-window counters in the database, so every process counts together: one row per
 * (scope, subject, window), incremented by one atomic upsert.
 */
export class RateCountersRepository implements WindowCounters {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async increment(scope: string, subject: string, windowMs: number, now: number): Promise<number> {
    const windowStart = now - (now % windowMs);
    const row = await this.#db
      .insertInto('rate_counters')
      .values({ scope, subject, window_start: windowStart, count: 1, expires_at: windowStart + windowMs })
      .onConflict((oc) =>
        oc.columns(['scope', 'subject', 'window_start']).doUpdateSet({ count: sql`rate_counters.count + 1` }),
      )
      .returning('count')
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async count(scope: string, subject: string, windowMs: number, now: number): Promise<number> {
    const row = await this.#db
      .selectFrom('rate_counters')
      .select('count')
      .where('scope', '=', scope)
      .where('subject', '=', subject)
      .where('window_start', '=', now - (now % windowMs))
      .executeTakeFirst();
    return row ? Number(row.count) : 0;
  }

  /** Drops the windows that ended before `now`. */
  async pruneBefore(now: number): Promise<number> {
    const result = await this.#db.deleteFrom('rate_counters').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
