import { CompiledQuery, type Kysely, type Selectable } from 'kysely';
import type { EventDraft, EventType, StoredEvent } from '../../domain/events.ts';
import { appendEventsSql, eventParams, eventRow } from '../event-insert.ts';
import type { Database, EventsTable } from '../schema.ts';
import { isPostgres } from './engine.ts';

export function toEvent(row: Selectable<EventsTable>): StoredEvent {
  return {
    id: row.id,
    accountId: row.account_id,
    type: row.type as EventType,
    mode: row.mode,
    objectType: row.object_type,
    objectId: row.object_id,
    objectSeq: row.object_seq,
    object: JSON.parse(row.data),
    createdAt: row.created_at,
  };
}

/**
 * Writes events into the outbox, all of them in one statement (store/event-insert.ts). Call it
 * inside the database transaction that makes the change: the row update before it holds the
 * object's lock, so sequence numbers of one object never collide (and a unique index would
 * refuse it if they did).
 */
export async function appendEvents(trx: Kysely<Database>, drafts: EventDraft[], now: number): Promise<void> {
  if (drafts.length === 0) return;
  const params = drafts.flatMap((draft) => eventParams(eventRow(draft, now)));
  await trx.executeQuery(CompiledQuery.raw(appendEventsSql(isPostgres(trx), drafts.length), params));
}
