/**
 * The SQLite writer thread's connection (store/sqlite-writer-thread.ts) as it opens it, and its
 * statement cache; `bench/confirm-writes-floor.ts` opens the same to measure that thread's floor.
 * Plain Node only: the writer thread runs outside the app's module graph.
 */
import SQLite from 'better-sqlite3';

export interface WriterConnection {
  db: SQLite.Database;
  /** The statement for `sql`, prepared on first use and kept. */
  prepared(sql: string): SQLite.Statement;
}

export function openWriterConnection(file: string): WriterConnection {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  // This connection commits most and so checkpoints most: it cuts the WAL back as well (0120).
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  // As store/database.ts's PAGE_CACHE (the writer thread runs outside the app's module graph).
  db.pragma(`cache_size = ${-32 * 1024}`);
  const cache = new Map<string, SQLite.Statement>();
  return {
    db,
    prepared(sql) {
      let statement = cache.get(sql);
      if (!statement) {
        statement = db.prepare(sql);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}
