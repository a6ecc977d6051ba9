import { type Expression, type SqlBool, sql } from 'kysely';
import type { Page } from '../domain/intents.ts';

/** Where a newest-first page starts: after this item. */
export interface Cursor {
  createdAt: number;
  id: string;
}

/**
 * Rows strictly older than the cursor in (created_at, id) order: keyset paging never skips
 * or repeats items created between two pages (docs/decisions/0005). For one-table queries.
 */
export function olderThan(cursor: Cursor): Expression<SqlBool> {
  return sql<SqlBool>`(created_at < ${cursor.createdAt} or (created_at = ${cursor.createdAt} and id < ${cursor.id}))`;
}

/** A page from `limit + 1` rows: the extra row only says that there is more. */
export function toPage<Row, T>(rows: Row[], limit: number, map: (row: Row) => T): Page<T> {
  return { data: rows.slice(0, limit).map(map), hasMore: rows.length > limit };
}
