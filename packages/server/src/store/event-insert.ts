import { type EventDraft, newEventId } from '../domain/events.ts';

/**
 * Appending an event is one statement on either engine, shared by every write path (repos/events.ts)
 * and the hot paths: its sequence number is the object's next, and an event of an account
 * with no enabled endpoint in its mode is born fanned out, so the dispatcher never makes a
 * second pass over it (decision 0120). One statement instead of three (read the last sequence
 * number, look for a listener, insert): each statement costs more in a busy server than the
 * lookups inside it (decision 0183).
 */

/** An event's row as the append statements take it (named like its columns). */
export function eventRow(draft: EventDraft, now: number) {
  return {
    id: newEventId(now),
    account_id: draft.accountId,
    type: draft.type,
    mode: draft.mode,
    object_type: draft.objectType,
    object_id: draft.objectId,
    data: JSON.stringify(draft.object),
    created_at: now,
  };
}

type EventRow = ReturnType<typeof eventRow>;

const INSERT_COLUMNS =
  'insert into events (id, account_id, type, mode, object_type, object_id, object_seq, data, created_at, fanned_out_at)';

/** SQLite, positional: the parameters are `sqliteEventParams(row)`. */
export const SQLITE_APPEND_EVENT = `${INSERT_COLUMNS}
  values (?, ?, ?, ?, ?, ?,
    (select coalesce(max(object_seq), 0) + 1 from events where object_id = ?),
    ?, ?,
    case when exists (select 1 from webhook_endpoints
      where account_id = ? and mode = ? and enabled = 1) then null else ? end)`;

/** In the order of SQLITE_APPEND_EVENT's placeholders: the subqueries repeat three of them. */
export const sqliteEventParams = (row: EventRow): unknown[] => {
  const { id, account_id, type, mode, object_type, object_id, data, created_at } = row;
  return [
    id,
    account_id,
    type,
    mode,
    object_type,
    object_id,
    object_id,
    data,
    created_at,
    account_id,
    mode,
    created_at,
  ];
};

const POSTGRES_PARAMS = [
  'id',
  'account_id',
  'type',
  'mode',
  'object_type',
  'object_id',
  'data',
  'created_at',
] as const satisfies ReadonlyArray<keyof EventRow>;

/** PostgreSQL: the event's parameters, numbered from the `from` its statement was made with. */
export const postgresEventParams = (row: EventRow): unknown[] => POSTGRES_PARAMS.map((column) => row[column]);

/**
 * PostgreSQL: an INSERT … SELECT of one event, its parameters `$from` onwards in the order of
 * `postgresEventParams`; `source` is the SELECT's FROM clause, if any (a CTE that must run first).
 */
export function postgresAppendEvent(from: number, source = ''): string {
  // In INSERT … SELECT the parameters take no type from the columns: each is cast.
  const p = (column: (typeof POSTGRES_PARAMS)[number]) =>
    `$${from + POSTGRES_PARAMS.indexOf(column)}::${column === 'created_at' ? 'bigint' : 'text'}`;
  return `${INSERT_COLUMNS}
    select ${p('id')}, ${p('account_id')}, ${p('type')}, ${p('mode')}, ${p('object_type')}, ${p('object_id')},
      (select coalesce(max(object_seq), 0) + 1 from events where object_id = ${p('object_id')}),
      ${p('data')}, ${p('created_at')},
      case when exists (select 1 from webhook_endpoints
        where account_id = ${p('account_id')} and mode = ${p('mode')} and enabled = 1)
      then null else ${p('created_at')} end
    ${source}`;
}

export const POSTGRES_APPEND_EVENT = postgresAppendEvent(1);
