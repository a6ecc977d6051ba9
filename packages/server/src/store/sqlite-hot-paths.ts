import type SQLite from 'better-sqlite3';
import type { EventDraft } from '../domain/events.ts';
import type { PaymentIntent } from '../domain/intents.ts';
import { CiphertextReplayed } from '../domain/payments/card-binding.ts';
import type { AttemptRules, BeginOutcome } from '../domain/payments/ports.ts';
import type { Transaction } from '../domain/transactions.ts';
import type { AccountId } from '../ids.ts';
import { type AttemptHotPaths, type FinishChange, startedIntent } from './attempt-hot-paths.ts';
import { endOfTurn } from './end-of-turn.ts';
import { appendEventsSql, eventParams, eventRow } from './event-insert.ts';
import { type HotPaths, INTENT_COLUMNS } from './hot-paths.ts';
import type { AccountsTable, PaymentIntentsTable, TransactionsTable } from './schema.ts';
import { BEGIN_GUARDS, beginUnit, FINISH_GUARDS, finishUnit } from './sqlite-attempts.ts';
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
  values (${INTENT_COLUMNS.map(() => '?').join(', ')})`;

const FIND_ACCOUNT = 'select * from accounts where id = ?';
const FIND_ACCOUNT_BY_CLIENT_KEY = 'select * from accounts where client_key = ?';
const FIND_INTENT = 'select * from payment_intents where account_id = ? and id = ?';
const FIND_TRANSACTION = 'select * from transactions where account_id = ? and id = ?';

/**
 * The hot paths of the embedded store (an account's status on every authenticated request,
 * creating and retrieving intents, retrieving transactions) as prepared statements on the connections
 * themselves: building and compiling a query with Kysely cost more than running it
 * (the profile in docs/performance.md). Creating an intent goes to the writer thread as
 * one unit; reads use the reader and see the last commit, never a batch in flight. Intents
 * and transactions by id are read at the end of the event loop's turn, all of the turn's
 * together (endOfTurn). A confirm's two writes go to the writer thread too (decision 0255).
 */
export class SqliteHotPaths implements HotPaths, AttemptHotPaths {
  readonly #thread: SqliteWriter;
  readonly #findAccount: SQLite.Statement;
  readonly #findAccountByClientKey: SQLite.Statement;
  readonly #findIntent: SQLite.Statement;
  readonly #findTransaction: SQLite.Statement;

  constructor({ reader, thread }: SqliteConnections) {
    this.#thread = thread;
    this.#findAccount = reader.prepare(FIND_ACCOUNT);
    this.#findAccountByClientKey = reader.prepare(FIND_ACCOUNT_BY_CLIENT_KEY);
    this.#findIntent = reader.prepare(FIND_INTENT);
    this.#findTransaction = reader.prepare(FIND_TRANSACTION);
  }

  /** The intent and its events, atomically; resolves after the commit. */
  async createIntent(row: PaymentIntentsTable, draft: EventDraft, now: number): Promise<void> {
    await this.#thread.run([
      // An array, not an object: cheaper to hand to the writer thread.
      { sql: INSERT_INTENT, params: INTENT_COLUMNS.map((column) => row[column]) },
      { sql: appendEventsSql(false, 1), params: eventParams(eventRow(draft, now)) },
    ]);
  }

  async beginAttempt(
    intent: PaymentIntent,
    tx: Transaction,
    rules: AttemptRules,
    events: EventDraft[],
  ): Promise<BeginOutcome> {
    if (rules.slot.limit <= 0) return { refused: 'rate_limited' };
    const stopped = await this.#thread.run(beginUnit(intent, tx, rules, events));
    if (stopped === BEGIN_GUARDS.replayed) throw new CiphertextReplayed();
    if (stopped === BEGIN_GUARDS.lost) return { refused: 'lost' };
    if (stopped === BEGIN_GUARDS.slots) return { refused: 'rate_limited' };
    return { begun: startedIntent(intent, tx, rules.now) };
  }

  async finishAttempt(
    intent: PaymentIntent,
    tx: Transaction,
    change: FinishChange,
    events: EventDraft[],
  ): Promise<boolean | 'intent_changed'> {
    const stopped = await this.#thread.run(finishUnit(intent, tx, change, events));
    if (stopped === FINISH_GUARDS.intentChanged) return 'intent_changed';
    return stopped !== FINISH_GUARDS.finished;
  }

  findAccount(id: AccountId): AccountsTable | undefined {
    return this.#findAccount.get(id) as AccountsTable | undefined;
  }

  findAccountByClientKey(clientKey: string): AccountsTable | undefined {
    return this.#findAccountByClientKey.get(clientKey) as AccountsTable | undefined;
  }

  async findIntent(accountId: AccountId, id: string): Promise<PaymentIntentsTable | undefined> {
    await endOfTurn();
    return this.#findIntent.get(accountId, id) as PaymentIntentsTable | undefined;
  }

  async findTransaction(accountId: AccountId, id: string): Promise<TransactionsTable | undefined> {
    await endOfTurn();
    return this.#findTransaction.get(accountId, id) as TransactionsTable | undefined;
  }
}
