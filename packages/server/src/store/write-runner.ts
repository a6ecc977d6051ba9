import { type Kysely, sql, type Transaction } from 'kysely';
import type { Engine } from './database.ts';
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
    return this.#db.transaction().execute(work);
  }
}

interface Pending {
  work: (trx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * SQLite: group commit. Every unit queued during one turn of the event loop runs in one
 * transaction, each inside its own savepoint (a failing unit undoes only itself), then one
 * durable commit (synchronous=FULL) answers them all. No caller hears "done" before the
 * commit. One fsync per request caps a disk at a few hundred writes a second; one per
 * batch does not (docs/decisions/0051-group-commit.md).
 */
export class GroupCommit implements WriteRunner {
  readonly #db: Kysely<Database>;
  #queue: Pending[] = [];
  #scheduled = false;

  constructor(db: Kysely<Database>) {
    this.#db = db;
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
      await this.#db.transaction().execute(async (trx) => {
        for (const [i, item] of batch.entries()) {
          const name = sql.raw(`w${i}`);
          await sql`savepoint ${name}`.execute(trx);
          try {
            settled.push({ ok: true, value: await item.work(trx) });
            await sql`release savepoint ${name}`.execute(trx);
          } catch (error) {
            await sql`rollback to savepoint ${name}`.execute(trx);
            await sql`release savepoint ${name}`.execute(trx);
            settled.push({ ok: false, error });
          }
        }
      });
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
}

export function writeRunnerFor(engine: Engine, db: Kysely<Database>): WriteRunner {
  return engine === 'sqlite' ? new GroupCommit(db) : new TransactionPerWrite(db);
}
