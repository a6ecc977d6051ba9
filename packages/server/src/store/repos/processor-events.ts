import type { Kysely } from 'kysely';
import type { NoticeLog } from '../../domain/payments/notices.ts';
import { isUniqueViolation } from '../driver-errors.ts';
import type { Database } from '../schema.ts';

/** Acquirer events already applied, by (processor, event id): a second delivery is dropped. */
export class ProcessorEventsRepository implements NoticeLog {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async seen(processor: string, eventId: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom('processor_events')
      .select('event_id')
      .where('processor', '=', processor)
      .where('event_id', '=', eventId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async remember(processor: string, eventId: string, now: number): Promise<void> {
    try {
      await this.#db
        .insertInto('processor_events')
        .values({ processor, event_id: eventId, received_at: now })
        .execute();
    } catch (error) {
      // Two deliveries of one event applied at once on two processes: both changes were compare-and-set.
      if (!isUniqueViolation(error)) throw error;
    }
  }
}
