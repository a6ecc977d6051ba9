import { type Kysely, sql } from 'kysely';
import type { SharedWindowTotals, WindowCount } from '../../domain/shared-windows.ts';
import type { WindowCounters, WindowSlot } from '../../domain/window-counters.ts';
import type { Database } from '../schema.ts';

const PROCESSES = 'rate_processes';

/**
 * Fixed-window counters in the database, so every process counts together: one row per
 * (scope, subject, window), incremented by one atomic upsert.
 */
export class RateCountersRepository implements WindowCounters, SharedWindowTotals {
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

  reserve(
    scope: string,
    subject: string,
    windowMs: number,
    now: number,
    limit: number,
  ): Promise<{ windowStart: number; count: number } | null> {
    return reserveSlot(this.#db, { scope, subject, windowMs, now, limit });
  }

  async release(scope: string, subject: string, windowStart: number): Promise<void> {
    await this.#db
      .updateTable('rate_counters')
      .set({ count: sql`count - 1` })
      .where('scope', '=', scope)
      .where('subject', '=', subject)
      .where('window_start', '=', windowStart)
      .where('count', '>', 0)
      .execute();
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

  /** Adds many counts in one statement (a process's sync of its in-memory windows, decision 0150). */
  async add(counts: WindowCount[], windowMs: number): Promise<WindowCount[]> {
    const totals: WindowCount[] = [];
    for (let from = 0; from < counts.length; from += 500) {
      const rows = await this.#db
        .insertInto('rate_counters')
        .values(
          counts.slice(from, from + 500).map((c) => ({
            scope: c.scope,
            subject: c.subject,
            window_start: c.windowStart,
            count: c.count,
            expires_at: c.windowStart + windowMs,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(['scope', 'subject', 'window_start'])
            .doUpdateSet({ count: sql`rate_counters.count + excluded.count` }),
        )
        .returning(['scope', 'subject', 'window_start', 'count'])
        .execute();
      for (const row of rows) {
        totals.push({
          scope: row.scope,
          subject: row.subject,
          windowStart: Number(row.window_start),
          count: row.count,
        });
      }
    }
    return totals;
  }

  /** One heartbeat row per process, good for 3 s after its last beat: the processes that counted lately. */
  async processes(processId: string, now: number): Promise<number> {
    await this.#db
      .insertInto('rate_counters')
      .values({ scope: PROCESSES, subject: processId, window_start: 0, count: 1, expires_at: now + 3000 })
      .onConflict((oc) =>
        oc.columns(['scope', 'subject', 'window_start']).doUpdateSet({ expires_at: sql`excluded.expires_at` }),
      )
      .execute();
    const row = await this.#db
      .selectFrom('rate_counters')
      .select((eb) => eb.fn.count<number>('subject').distinct().as('processes'))
      .where('scope', '=', PROCESSES)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(row?.processes ?? 1);
  }

  /** Drops the windows that ended before `now`. */
  async pruneBefore(now: number): Promise<number> {
    const result = await this.#db.deleteFrom('rate_counters').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/**
 * Takes `slot` in one statement, in `db` or inside a transaction's unit (the card-testing slot of
 * a payment attempt is taken with the attempt, decision 0270): the window's start and its count
 * with this slot when taken, null when full.
 */
export async function reserveSlot(
  db: Kysely<Database>,
  slot: WindowSlot,
): Promise<{ windowStart: number; count: number } | null> {
  const { scope, subject, windowMs, now, limit } = slot;
  if (limit <= 0) return null;
  const windowStart = now - (now % windowMs);
  // The conflict's update runs only under the limit: a full window returns no row, and two
  // racing reservations are ordered by the row lock (PostgreSQL) or the one writer (SQLite).
  const row = await db
    .insertInto('rate_counters')
    .values({ scope, subject, window_start: windowStart, count: 1, expires_at: windowStart + windowMs })
    .onConflict((oc) =>
      oc
        .columns(['scope', 'subject', 'window_start'])
        .doUpdateSet({ count: sql`rate_counters.count + 1` })
        .where('rate_counters.count', '<', limit),
    )
    .returning('count')
    .executeTakeFirst();
  return row ? { windowStart, count: Number(row.count) } : null;
}
