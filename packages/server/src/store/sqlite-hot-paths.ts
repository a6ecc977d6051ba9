import type SQLite from 'better-sqlite3';
import type { EventDraft } from '../domain/events.ts';
import { endOfTurn } from './end-of-turn.ts';
import { appendEventsSql, eventParams, eventRow } from './event-insert.ts';
import { type HotPaths, INTENT_COLUMNS } from './hot-paths.ts';
import type { AccountsTable, PaymentIntentsTable, TransactionsTable } from './schema.ts';
import type { SqliteWriter } from './sqlite-writer.ts';

/**
 * The embedded store's connections: Kysely's (`writer`: group commits of the other write
 * paths), a reader (WAL snapshots), and the hot write path's writer thread.
 */
export interface SqliteConnections {
  writer: SQLite.Database;
  reader: SQLite.Database;
  thread: SqliteWriter;
}

const INSERT_INTENT = `insert into payment_intents (${INTENT_COLUMNS.join(', ')})
  values (${INTENT_COLUMNS.map((c) => `@${c}`).join(', ')})`;

const FIND_ACCOUNT = 'select * from accounts where id = ?';
const FIND_INTENT = 'select * from payment_intents where account_id = ? and id = ?';
const FIND_TRANSACTION = 'select * from transactions where account_id = ? and id = ?';

/**
 * The hot paths of the embedded store (an account's status on every authenticated request,
 * creating and retrieving intents, retrieving transactions) as prepared statements on the connections
 * themselves: building and compiling a query with Kysely cost more than running it
 * (the profile in docs/performance.md). Creating an intent goes to the writer thread as
 * one unit; reads use the reader and see the last commit, never a batch in flight. Intents
 * and transactions by id are read at the end of the event loop's turn, all of the turn's
 * together (endOfTurn).
 */
export class SqliteHotPaths implements HotPaths {
  readonly #thread: SqliteWriter;
  readonly #findAccount: SQLite.Statement;
  readonly #findIntent: SQLite.Statement;
  readonly #findTransaction: SQLite.Statement;

  constructor({ reader, thread }: SqliteConnections) {
    this.#thread = thread;
    this.#findAccount = reader.prepare(FIND_ACCOUNT);
    this.#findIntent = reader.prepare(FIND_INTENT);
    this.#findTransaction = reader.prepare(FIND_TRANSACTION);
  }

  /** The intent and its events, atomically; resolves after the commit. */
  createIntent(row: PaymentIntentsTable, draft: EventDraft, now: number): Promise<void> {
    return this.#thread.run([
      { sql: INSERT_INTENT, params: { ...row } },
      { sql: appendEventsSql(false, 1), params: eventParams(eventRow(draft, now)) },
    ]);
  }

  findAccount(id: string): AccountsTable | undefined {
    return this.#findAccount.get(id) as AccountsTable | undefined;
  }

  async findIntent(accountId: string, id: string): Promise<PaymentIntentsTable | undefined> {
    await endOfTurn();
    return this.#findIntent.get(accountId, id) as PaymentIntentsTable | undefined;
  }

  async findTransaction(accountId: string, id: string): Promise<TransactionsTable | undefined> {
    await endOfTurn();
    return this.#findTransaction.get(accountId, id) as TransactionsTable | undefined;
  }
}
