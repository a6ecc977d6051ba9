import { open } from 'node:fs/promises';
import type SQLite from 'better-sqlite3';
import { type Kysely, sql, type Transaction } from 'kysely';
import { CRASH_PLAN, crashPoint } from '../crash-points.ts';
import type { DatabaseHandle } from './database.ts';
import type { Database } from './schema.ts';

/**
 * Runs one unit of writes atomically. Repositories write through this and never open
 * transactions of their own, so that the engine can decide how commits are made. A unit
 * touches the database only through the `trx` it is given: on SQLite the batch holds the
 * one connection, and a query on the outer handle would wait for the batch that waits for it.
 */
export interface WriteRunner {
  run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
}

/** PostgreSQL: one transaction per unit; the server already groups concurrent commits. */
export class TransactionPerWrite implements WriteRunner {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }
  run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.#db.transaction().execute(CRASH_PLAN ? crashBeforeCommit(work) : work);
  }
}

/** Crash tests: the unit ran, its transaction is open (PostgreSQL). */
const crashBeforeCommit =
  <T>(work: (trx: Transaction<Database>) => Promise<T>) =>
  async (trx: Transaction<Database>) => {
    const result = await work(trx);
    crashPoint('during_group_commit');
    return result;
  };

interface Pending {
  work: (trx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * SQLite: group commit. Every unit queued during one turn of the event loop runs in one
 * transaction, each inside its own savepoint (a failing unit undoes only itself), then one
 * durable commit answers them all. No caller hears "done" before the commit is on disk. One
 * fsync per request caps a disk at a few hundred writes a second; one per batch does not
 * (docs/decisions/0051-group-commit.md).
 *
 * With `syncWal`, the fsync leaves the main thread (decision 0182): the batch commits with
 * synchronous=NORMAL (its WAL frames written, not synced) and `syncWal` then fdatasyncs the WAL
 * file on libuv's thread pool before anyone is answered. The event loop serves requests during
 * the fsync instead of stopping for it. Every other write of the connection keeps FULL.
 */
export class GroupCommit implements WriteRunner {
  readonly #db: Kysely<Database>;
  readonly #writer: SQLite.Database | undefined;
  readonly #syncWal: (() => Promise<void>) | undefined;
  readonly #savepoint: Savepoints;
  #queue: Pending[] = [];
  #scheduled = false;

  /** `writer`: Kysely's own connection, to set savepoints without building a query each time. */
  constructor(db: Kysely<Database>, writer?: SQLite.Database, syncWal?: () => Promise<void>) {
    this.#db = db;
    this.#writer = writer;
    this.#syncWal = writer && syncWal;
    this.#savepoint = writer ? nativeSavepoints(writer) : kyselySavepoints;
  }

  run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#queue;
    this.#queue = [];
    this.#scheduled = false;
    const settled: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      const units = async (trx: Transaction<Database>) => {
        for (const item of batch) {
          await this.#savepoint.set(trx);
          try {
            settled.push({ ok: true, value: await item.work(trx) });
            await this.#savepoint.release(trx);
          } catch (error) {
            await this.#savepoint.rollback(trx);
            await this.#savepoint.release(trx);
            settled.push({ ok: false, error });
          }
        }
        crashPoint('during_group_commit');
      };
      if (this.#syncWal && this.#writer) {
        await this.#commitUnsynced(this.#writer, units);
        await this.#syncWal();
      } else {
        await this.#db.transaction().execute(units);
      }
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    for (const [i, item] of batch.entries()) {
      const outcome = settled[i];
      if (outcome?.ok) item.resolve(outcome.value);
      else item.reject(outcome?.error);
    }
  }

  /**
   * One transaction committed with synchronous=NORMAL. The connection is held from before the
   * pragma to after it is set back, so no other write of the process ever runs unsynced.
   */
  async #commitUnsynced(writer: SQLite.Database, units: (trx: Transaction<Database>) => Promise<void>): Promise<void> {
    await this.#db.connection().execute(async (connection) => {
      writer.pragma('synchronous = NORMAL');
      try {
        await sql`begin immediate`.execute(connection);
        try {
          // A connection held for the batch, used as its transaction: begin and commit are ours.
          await units(connection as unknown as Transaction<Database>);
          await sql`commit`.execute(connection);
        } catch (error) {
          if (writer.inTransaction) await sql`rollback`.execute(connection);
          throw error;
        }
      } finally {
        writer.pragma('synchronous = FULL');
      }
    });
  }
}

/**
 * fdatasync of the database's WAL file on libuv's thread pool: the frames a synchronous=NORMAL
 * commit wrote are on disk when it resolves (fsync flushes the file, whichever descriptor wrote
 * them). SQLite keeps the WAL file while any connection is open; it is opened anew each time.
 */
export function walSyncer(databaseFile: string): () => Promise<void> {
  const wal = `${databaseFile}-wal`;
  return async () => {
    const handle = await open(wal, 'r+');
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
  };
}

interface Savepoints {
  set(trx: Transaction<Database>): Promise<unknown> | undefined;
  release(trx: Transaction<Database>): Promise<unknown> | undefined;
  rollback(trx: Transaction<Database>): Promise<unknown> | undefined;
}

/** One savepoint name serves every unit: each is released before the next is set. */
const kyselySavepoints: Savepoints = {
  set: (trx) => sql`savepoint unit`.execute(trx),
  release: (trx) => sql`release savepoint unit`.execute(trx),
  rollback: (trx) => sql`rollback to savepoint unit`.execute(trx),
};

function nativeSavepoints(writer: SQLite.Database): Savepoints {
  const set = writer.prepare('savepoint unit');
  const release = writer.prepare('release savepoint unit');
  const rollback = writer.prepare('rollback to savepoint unit');
  return {
    set: () => void set.run(),
    release: () => void release.run(),
    rollback: () => void rollback.run(),
  };
}

export function writeRunnerFor(database: DatabaseHandle): WriteRunner {
  return database.engine === 'sqlite'
    ? new GroupCommit(database.db, database.sqlite?.writer, walSyncer(database.location))
    : new TransactionPerWrite(database.db);
}
