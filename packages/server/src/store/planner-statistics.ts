import type SQLite from 'better-sqlite3';

/** Rows ANALYZE samples per index: its cost stays bounded however large the store grows. */
const ANALYSIS_LIMIT = 1000;

/**
 * SQLite picks an index from the statistics ANALYZE keeps in the file (sqlite_stat1); without
 * them it guesses, and with one large account it guesses wrong: the attempts of one intent,
 * one object's events or a page's 25 transactions were read through the account's index,
 * a walk over every row of the account (73 ms for a payment's page at 100,000 payments, growing
 * with the store). PRAGMA optimize analyzes the tables that need it, as SQLite advises for
 * long-lived connections: at start (every table: 0x10002) and then now and again (decision 0262).
 * PostgreSQL's autovacuum keeps its own statistics.
 */
export function refreshPlannerStatistics(db: SQLite.Database, atStart = false): void {
  db.pragma(`analysis_limit = ${ANALYSIS_LIMIT}`);
  db.pragma(atStart ? 'optimize = 0x10002' : 'optimize');
}
