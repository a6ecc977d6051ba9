/**
 * The embedded store's writer thread (store/sqlite-writer.ts is its other side). It owns one
 * connection and runs each batch it is sent as one durable transaction: every unit in a
 * savepoint of its own (a failing unit undoes only itself), then one `synchronous=FULL`
 * commit. The fsync happens here, so the main thread serves requests meanwhile.
 * Plain Node only: this file runs outside the app's module graph.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

interface Statement {
  sql: string;
  params: Record<string, unknown> | unknown[];
}
interface Batch {
  id: number;
  units: Statement[][];
}
type Outcome = { ok: true } | { ok: false; message: string; code?: string };

const db = new SQLite((workerData as { file: string }).file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');
db.pragma('foreign_keys = ON');
// This connection commits most and so checkpoints most: it cuts the WAL back as well (0120).
db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);

const cache = new Map<string, SQLite.Statement>();
const prepared = (sql: string) => {
  let statement = cache.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
};

const failure = (error: unknown): Outcome => ({
  ok: false,
  message: error instanceof Error ? error.message : String(error),
  ...((error as { code?: string }).code ? { code: (error as { code: string }).code } : {}),
});

function runUnit(unit: Statement[]): Outcome {
  prepared('savepoint unit').run();
  try {
    for (const statement of unit) prepared(statement.sql).run(statement.params);
    prepared('release savepoint unit').run();
    return { ok: true };
  } catch (error) {
    prepared('rollback to savepoint unit').run();
    prepared('release savepoint unit').run();
    return failure(error);
  }
}

function runBatch(batch: Batch): Outcome[] {
  try {
    prepared('begin immediate').run();
  } catch (error) {
    return batch.units.map(() => failure(error));
  }
  const outcomes = batch.units.map(runUnit);
  try {
    prepared('commit').run();
    return outcomes;
  } catch (error) {
    if (db.inTransaction) prepared('rollback').run();
    return batch.units.map(() => failure(error));
  }
}

parentPort?.on('message', (batch: Batch | 'close') => {
  if (batch === 'close') {
    db.close();
    parentPort?.close();
    return;
  }
  parentPort?.postMessage({ id: batch.id, outcomes: runBatch(batch) });
});
