import { type EventDraft, newEventId } from '../domain/events.ts';

/**
 * Appending the events of one write is one statement on either engine, shared by every write
 * path (repos/events.ts) and the hot paths: each event's sequence number is its object's next,
 * and an event of an account with no enabled endpoint in its mode is born fanned out, so the
 * dispatcher never makes a second pass over it (decision 0120). One statement instead of three
 * per event (read the last sequence number, look for a listener, insert): each statement, a
 * round trip on PostgreSQL, costs more in a busy server than the lookups inside it (0183).
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

const VALUE_COLUMNS = [
  'id',
  'account_id',
  'type',
  'mode',
  'object_type',
  'object_id',
  'data',
  'created_at',
] as const satisfies ReadonlyArray<keyof EventRow>;

/** An event's parameters, in the order both engines' statements take them. */
export const eventParams = (row: EventRow): unknown[] => VALUE_COLUMNS.map((column) => row[column]);

const batchStatements = new Map<string, string>();

/**
 * The events of one write in one statement, their parameters `eventParams` of each in turn:
 * each is numbered after its object's last event, and events of one object in their order.
 */
export function appendEventsSql(postgres: boolean, count: number): string {
  const name = `${postgres ? 'pg' : 'sqlite'}:${count}`;
  let text = batchStatements.get(name);
  if (text === undefined) {
    text = eventsStatement(postgres, count);
    batchStatements.set(name, text);
  }
  return text;
}

/**
 * The same statement after a CTE of `lead` (PostgreSQL: an insert that must succeed with the
 * events, in the same statement), whose parameters are the first `leadParams`.
 */
export function appendEventsAfter(lead: string, leadParams: number): string {
  return eventsStatement(true, 1, lead, leadParams);
}

function eventsStatement(postgres: boolean, count: number, lead = '', leadParams = 0): string {
  return `with ${lead ? `${lead}, ` : ''}${batchOf(postgres, count, leadParams)}
    ${insertFromBatch('')}`;
}

/**
 * PostgreSQL: CTEs that insert `count` events, their parameters from `$from + 1` on, only when
 * the CTE `onlyAfter` has a row (a compare-and-set that won, in the same statement).
 */
export function appendEventsCtes(from: number, count: number, onlyAfter: string): string {
  return `${batchOf(true, count, from)},
    events_added as (${insertFromBatch(`where exists (select 1 from ${onlyAfter})`)} returning 1)`;
}

/** The events' values as the CTE `batch`, numbered by `n` in their order. */
function batchOf(postgres: boolean, count: number, from: number): string {
  // PostgreSQL types a VALUES list from its parameters: each is cast.
  const value = (column: (typeof VALUE_COLUMNS)[number], index: number) =>
    postgres ? `$${from + index + 1}::${column === 'created_at' ? 'bigint' : 'text'}` : '?';
  const rows = Array.from(
    { length: count },
    (_, n) => `(${VALUE_COLUMNS.map((column, k) => value(column, n * VALUE_COLUMNS.length + k)).join(', ')}, ${n})`,
  );
  return `batch (${VALUE_COLUMNS.join(', ')}, n) as (values ${rows.join(', ')})`;
}

function insertFromBatch(where: string): string {
  return `${INSERT_COLUMNS}
    select b.id, b.account_id, b.type, b.mode, b.object_type, b.object_id,
      coalesce((select max(e.object_seq) from events e where e.object_id = b.object_id), 0)
        + row_number() over (partition by b.object_id order by b.n),
      b.data, b.created_at,
      case when exists (select 1 from webhook_endpoints w
        where w.account_id = b.account_id and w.mode = b.mode and w.enabled = 1)
      then null else b.created_at end
    from batch b ${where}`;
}
