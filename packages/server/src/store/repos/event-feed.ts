import type { Kysely } from 'kysely';
import type { EventFeed, EventFilter } from '../../domain/event-queries.ts';
import type { StoredEvent } from '../../domain/events.ts';
import type { Page } from '../../domain/intents.ts';
import type { AccountId } from '../../ids.ts';
import { readAtEndOfTurn } from '../end-of-turn.ts';
import { olderThan, toPage } from '../keyset.ts';
import type { Database } from '../schema.ts';
import { toEvent } from './events.ts';

/** The events API's reads of the outbox, and its retention. */
export class EventFeedRepository implements EventFeed {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async find(accountId: AccountId, id: string): Promise<StoredEvent | undefined> {
    const row = await this.#db
      .selectFrom('events')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toEvent(row);
  }

  /** Events of one object, oldest first. */
  async forObject(accountId: AccountId, objectId: string): Promise<StoredEvent[]> {
    const rows = await this.#db
      .selectFrom('events')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('object_id', '=', objectId)
      .orderBy('object_seq')
      .execute();
    return rows.map(toEvent);
  }

  async list(
    accountId: AccountId,
    limit: number,
    filter: EventFilter,
    after?: StoredEvent,
  ): Promise<Page<StoredEvent>> {
    let query = this.#db
      .selectFrom('events')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1);
    if (filter.types !== undefined) query = query.where('type', 'in', filter.types);
    if (filter.objectId !== undefined) query = query.where('object_id', '=', filter.objectId);
    if (after) {
      query = query.where(olderThan(after));
    }
    const rows = await readAtEndOfTurn(() => query.execute());
    return toPage(rows, limit, toEvent);
  }

  /**
   * Deletes events created before `cutoff` with their deliveries and attempts, except the
   * newest event of each object: appendEvents numbers the next one after it.
   */
  async pruneBefore(cutoff: number): Promise<number> {
    return this.#db.transaction().execute(async (trx) => {
      const expired = trx
        .selectFrom('events as e')
        .select('e.id')
        .where('e.created_at', '<', cutoff)
        .where('e.object_seq', '<', (eb) =>
          eb
            .selectFrom('events as newest')
            .select((f) => f.fn.max('newest.object_seq').as('seq'))
            .whereRef('newest.object_id', '=', 'e.object_id'),
        );
      const deliveries = trx.selectFrom('webhook_deliveries').select('id').where('event_id', 'in', expired);
      await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
      await trx.deleteFrom('webhook_deliveries').where('event_id', 'in', expired).execute();
      const result = await trx.deleteFrom('events').where('id', 'in', expired).executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }
}
