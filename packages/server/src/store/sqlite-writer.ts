import { Worker } from 'node:worker_threads';
import { CRASH_PLAN } from '../crash-points.ts';

/** One SQL statement with its parameters, as data: it crosses to the writer thread. */
export interface Statement {
  sql: string;
  params: Record<string, unknown> | unknown[];
  /**
   * A compare-and-set: when the statement changes no row, the unit stops there, changing
   * nothing (what it had changed before is undone), and answers this name.
   */
  guard?: string;
}

interface Pending {
  unit: Statement[];
  resolve: (stopped: string | undefined) => void;
  reject: (error: Error) => void;
}

type Outcome = { ok: true; stopped?: string } | { ok: false; message: string; code?: string };

const THREAD = new URL(
  import.meta.url.endsWith('.ts') ? './sqlite-writer-thread.ts' : './sqlite-writer-thread.js',
  import.meta.url,
);

/**
 * Pipelined group commit on a writer thread (docs/decisions/0121-sqlite-writer-thread.md).
 * Units sent while a batch commits wait in the queue and go out together as the next
 * batch as soon as it is done: batch k+1 fills while batch k commits, and the main thread
 * never waits for an fsync. A unit's promise settles only after its batch's commit.
 */
export class SqliteWriter {
  readonly #file: string;
  #worker: Worker | undefined;
  #queue: Pending[] = [];
  #inFlight: Pending[] | undefined;
  #scheduled = false;
  #nextId = 1;
  #drained: (() => void) | undefined;
  /** Every SQL text the thread has been sent, by its number: a batch names statements by number. */
  readonly #statementIds = new Map<string, number>();
  #newStatements: string[] = [];

  constructor(file: string) {
    this.#file = file;
  }

  /**
   * Runs the statements of one unit atomically, in the next batch. Resolves after the commit:
   * with the guard of the statement that stopped the unit (which then changed nothing), or
   * undefined when every statement ran.
   */
  run(unit: Statement[]): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ unit, resolve, reject });
      if (!this.#inFlight && !this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#send());
      }
    });
  }

  #send(): void {
    this.#scheduled = false;
    if (this.#inFlight || this.#queue.length === 0) return;
    const batch = this.#queue;
    this.#queue = [];
    this.#inFlight = batch;
    const thread = this.#thread(); // first: a new thread resets the statement numbers
    // Cloning the SQL text of every statement into each batch cost more than running it.
    const units = batch.map((p) =>
      p.unit.map((statement) =>
        statement.guard === undefined
          ? [this.#statementId(statement.sql), statement.params]
          : [this.#statementId(statement.sql), statement.params, statement.guard],
      ),
    );
    const definitions = this.#newStatements;
    this.#newStatements = [];
    thread.postMessage({ id: this.#nextId++, definitions, units });
  }

  #statementId(sql: string): number {
    let id = this.#statementIds.get(sql);
    if (id === undefined) {
      id = this.#statementIds.size;
      this.#statementIds.set(sql, id);
      this.#newStatements.push(sql);
    }
    return id;
  }

  #thread(): Worker {
    if (!this.#worker) {
      const worker = new Worker(THREAD, {
        workerData: {
          file: this.#file,
          crashAtBatch: CRASH_PLAN?.point === 'during_writer_commit' ? CRASH_PLAN.nth : 0,
        },
      });
      // A new thread knows no statement: number them again from the start.
      this.#statementIds.clear();
      this.#newStatements = [];
      worker.on('message', (answer: { outcomes: Outcome[] }) => this.#settle(answer.outcomes));
      worker.on('error', (error) => this.#fail(error));
      worker.on('exit', (code) => {
        // Not asked to close: whatever it had is not known to be committed, so it failed.
        if (this.#worker === worker) this.#fail(new Error(`the SQLite writer thread exited (${code})`));
      });
      this.#worker = worker;
    }
    return this.#worker;
  }

  #settle(outcomes: Outcome[]): void {
    const batch = this.#inFlight ?? [];
    this.#inFlight = undefined;
    this.#send(); // the next batch goes out before this one's callers are answered
    for (const [i, pending] of batch.entries()) {
      const outcome = outcomes[i];
      if (outcome?.ok) pending.resolve(outcome.stopped);
      else pending.reject(Object.assign(new Error(outcome?.message ?? 'write failed'), { code: outcome?.code }));
    }
    if (!this.#inFlight && this.#queue.length === 0) this.#drained?.();
  }

  #fail(error: Error): void {
    if (!this.#worker) return;
    const lost = [...(this.#inFlight ?? []), ...this.#queue];
    this.#inFlight = undefined;
    this.#queue = [];
    this.#worker = undefined;
    for (const pending of lost) pending.reject(error);
    this.#drained?.();
  }

  /** Waits for the units already queued, then ends the thread. */
  async close(): Promise<void> {
    if (this.#inFlight || this.#queue.length > 0) {
      await new Promise<void>((resolve) => {
        this.#drained = resolve;
      });
    }
    const worker = this.#worker;
    this.#worker = undefined;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('close');
    await exited;
  }
}
