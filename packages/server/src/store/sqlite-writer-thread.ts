/**
 * The embedded store's writer thread (store/sqlite-writer.ts is its other side). It owns one
 * connection and runs each batch it is sent as one durable transaction, then one
 * `synchronous=FULL` commit. The fsync happens here, so the main thread serves requests meanwhile.
 * A failing unit undoes only itself: the batch first runs straight through, and only when a
 * unit fails is it rolled back and run again with every unit in a savepoint of its own
 * (a statement inside a savepoint journals the pages it changes: a quarter of a create's time
 * on this thread, for a failure that almost never comes; decision 0185).
 * A statement may be a guard (a compare-and-set): when it changes no row, its unit stops and
 * changes nothing. A guard that stops a unit before any row of it changed costs nothing; one
 * that stops it after is undone like a failure, by the savepoint run (decision 0255).
 * Plain Node only: this file runs outside the app's module graph.
 */
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { openWriterConnection } from './sqlite-writer-connection.ts';

type Params = Record<string, unknown> | unknown[];
interface Batch {
  id: number;
  /** SQL texts first sent with this batch; statement n is the n-th text ever sent. */
  definitions: string[];
  units: Array<Array<[statement: number, params: Params, guard?: string]>>;
}
type Outcome = { ok: true; stopped?: string } | { ok: false; message: string; code?: string };

const { file, crashAtBatch } = workerData as { file: string; crashAtBatch: number };
const { db, prepared } = openWriterConnection(file);

const failure = (error: unknown): Outcome => ({
  ok: false,
  message: error instanceof Error ? error.message : String(error),
  ...((error as { code?: string }).code ? { code: (error as { code: string }).code } : {}),
});

/** The SQL texts sent so far, by number; each is prepared on first use, inside its unit. */
const texts: string[] = [];

const SUCCEEDED: Outcome = { ok: true };

/** A guard that stopped its unit after rows of it had changed: thrown, so that they are undone. */
class StoppedAfterChanges extends Error {
  readonly guard: string;
  constructor(guard: string) {
    super(`stopped by ${guard}`);
    this.guard = guard;
  }
}

/**
 * A unit's statements in order, in whatever transaction or savepoint is open: the guard that
 * stopped it before it changed anything, or undefined when all ran.
 */
function runStatements(unit: Batch['units'][number]): string | undefined {
  let changed = false;
  for (const [statement, params, guard] of unit) {
    const { changes } = prepared(texts[statement] as string).run(params);
    if (changes > 0) changed = true;
    else if (guard !== undefined) {
      if (changed) throw new StoppedAfterChanges(guard);
      return guard;
    }
  }
  return undefined;
}

const outcomeOf = (stopped: string | undefined): Outcome => (stopped === undefined ? SUCCEEDED : { ok: true, stopped });

function runUnit(unit: Batch['units'][number]): Outcome {
  prepared('savepoint unit').run();
  try {
    const stopped = runStatements(unit);
    prepared('release savepoint unit').run();
    return outcomeOf(stopped);
  } catch (error) {
    prepared('rollback to savepoint unit').run();
    prepared('release savepoint unit').run();
    return error instanceof StoppedAfterChanges ? { ok: true, stopped: error.guard } : failure(error);
  }
}

/** Every unit of the batch in the open transaction, no savepoints; undefined (all undone) when one throws. */
function runStraight(units: Batch['units']): Outcome[] | undefined {
  try {
    return units.map((unit) => outcomeOf(runStatements(unit)));
  } catch {
    if (db.inTransaction) prepared('rollback').run();
    return undefined;
  }
}

function runBatch(batch: Batch): Outcome[] {
  texts.push(...batch.definitions);
  let outcomes: Outcome[];
  try {
    prepared('begin immediate').run();
    const straight = runStraight(batch.units);
    if (straight) {
      outcomes = straight;
    } else {
      prepared('begin immediate').run();
      outcomes = batch.units.map(runUnit);
    }
  } catch (error) {
    // Only `begin` throws here: no transaction is open.
    return batch.units.map(() => failure(error));
  }
  if (batch.id === crashAtBatch) crash();
  try {
    prepared('commit').run();
    return outcomes;
  } catch (error) {
    if (db.inTransaction) prepared('rollback').run();
    return batch.units.map(() => failure(error));
  }
}

/** The crash point `during_writer_commit` (tests only, src/crash-points.ts): the nth batch never commits. */
function crash(): void {
  writeSync(2, `crash point during_writer_commit:${crashAtBatch} reached: SIGKILL\n`);
  process.kill(process.pid, 'SIGKILL');
}

parentPort?.on('message', (batch: Batch | 'close') => {
  if (batch === 'close') {
    db.close();
    parentPort?.close();
    return;
  }
  parentPort?.postMessage({ id: batch.id, outcomes: runBatch(batch) });
});
