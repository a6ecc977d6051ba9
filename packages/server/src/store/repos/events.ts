import type { Kysely, Selectable } from 'kysely';
import type { EventDraft, EventType, StoredEvent } from '../../domain/events.ts';
import { newEventId } from '../../domain/events.ts';
import type { Database, EventsTable } from '../schema.ts';

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
 * Writes events into the outbox. Call it inside the database transaction that makes the
 * change: the row update before it holds the object's lock, so sequence numbers of one
 * object never collide (and a unique index would refuse it if they did).
 */
export async function appendEvents(trx: Kysely<Database>, drafts: EventDraft[], now: number): Promise<StoredEvent[]> {
  const stored: StoredEvent[] = [];
  const listened = new Map<string, boolean>();
  for (const draft of drafts) {
    const audience = `${draft.accountId} ${draft.mode}`;
    if (!listened.has(audience)) listened.set(audience, await hasListener(trx, draft));
    const last = await trx
      .selectFrom('events')
      .select((eb) => eb.fn.max('object_seq').as('seq'))
      .where('object_id', '=', draft.objectId)
      .executeTakeFirst();
    const event: StoredEvent = {
      id: newEventId(now),
      accountId: draft.accountId,
      type: draft.type,
      mode: draft.mode,
      objectType: draft.objectType,
      objectId: draft.objectId,
      objectSeq: Number(last?.seq ?? 0) + 1,
      object: draft.object,
      createdAt: now,
    };
    await trx
      .insertInto('events')
      .values({
        id: event.id,
        account_id: event.accountId,
        type: event.type,
        mode: event.mode,
        object_type: event.objectType,
        object_id: event.objectId,
        object_seq: event.objectSeq,
        data: JSON.stringify(event.object),
        created_at: event.createdAt,
        // Nobody to deliver to: born fanned out, so the dispatcher never passes over it.
        fanned_out_at: listened.get(audience) ? null : now,
      })
      .execute();
    stored.push(event);
  }
  return stored;
}

/** Whether an enabled endpoint of the event's account and mode exists (endpoints get events from their creation on). */
async function hasListener(trx: Kysely<Database>, draft: EventDraft): Promise<boolean> {
  const found = await trx
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('account_id', '=', draft.accountId)
    .where('mode', '=', draft.mode)
    .where('enabled', '=', 1)
    .limit(1)
    .executeTakeFirst();
  return found !== undefined;
}
