import { Worker } from 'node:worker_threads';

export interface WorkerPoolLimits {
  /** Threads working at once (each job takes one core for its duration). */
  threads: number;
  /** Jobs allowed to wait for a thread; one more is refused with WorkerPoolBusy. */
  queue: number;
}

/** The pool is full: the caller answers 503 with Retry-After rather than queueing more. */
export class WorkerPoolBusy extends Error {
  constructor(what: string) {
    super(`${what} is at capacity`);
    this.name = 'WorkerPoolBusy';
  }
}

export interface WorkerPoolOptions {
  /** Names the work in errors ("password hashing", "card decryption"). */
  what: string;
  limits: WorkerPoolLimits;
  /** The error a full pool refuses with; default WorkerPoolBusy. */
  busy?: () => Error;
}

/** A thread ended (crashed, or exited) while it held a job: the job did not run to its end. */
export class WorkerLost extends Error {
  constructor(what: string, cause: unknown) {
    super(`a ${what} thread ended while working`, { cause });
    this.name = 'WorkerLost';
  }
}

/**
 * What a thread answers for one job: `{ id, value }`, or `{ id, error }` for a job it refused.
 * Every thread of a pool reads `{ id, ...job }` messages and answers each with one of these.
 */
export type ThreadAnswer<T> = { id: number; value: T; error?: undefined } | { id: number; error: string };

interface Job<In, Out> {
  id: number;
  input: In;
  resolve(value: Out): void;
  reject(error: Error): void;
}

/**
 * CPU-bound work on threads of its own, never on libuv's shared pool (decisions 0202, 0251):
 * never more than `threads + queue` jobs at once, so a flood costs at most `threads` cores and
 * is refused beyond that. Threads start on first use and keep the process alive only while
 * they have work; a thread that dies fails its job and the next job starts a new one.
 */
export class WorkerPool<In extends object, Out> {
  readonly #script: URL;
  readonly #what: string;
  readonly #limits: WorkerPoolLimits;
  readonly #busyError: () => Error;
  readonly #idle: Worker[] = [];
  readonly #busy = new Map<Worker, Job<In, Out>>();
  readonly #waiting: Job<In, Out>[] = [];
  #started = 0;
  #nextId = 1;
  #retired = false;
  #closed = false;

  constructor(script: URL, options: WorkerPoolOptions) {
    this.#script = script;
    this.#what = options.what;
    this.#limits = options.limits;
    this.#busyError = options.busy ?? (() => new WorkerPoolBusy(options.what));
  }

  get limits(): WorkerPoolLimits {
    return this.#limits;
  }

  /** Jobs in progress or waiting. */
  get inFlight(): number {
    return this.#busy.size + this.#waiting.length;
  }

  /** Threads running now, idle or busy. */
  get threads(): number {
    return this.#started;
  }

  run(input: In): Promise<Out> {
    if (this.#closed) return Promise.reject(new Error(`${this.#what} is closed`));
    if (this.inFlight >= this.#limits.threads + this.#limits.queue) return Promise.reject(this.#busyError());
    return new Promise<Out>((resolve, reject) => {
      this.#waiting.push({ id: this.#nextId++, input, resolve, reject });
      this.#pump();
    });
  }

  /** Threads end as they finish: a pool replaced by another with new limits. */
  retire(): void {
    this.#retired = true;
    for (const worker of this.#idle.splice(0)) void worker.terminate();
  }

  /** Ends every thread now; jobs waiting or in progress fail. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#waiting.splice(0)) job.reject(new Error(`${this.#what} is closed`));
    const workers = [...this.#idle, ...this.#busy.keys()];
    this.#idle.length = 0;
    await Promise.all(workers.map((w) => w.terminate()));
  }

  #pump(): void {
    if (this.#closed) return;
    while (this.#waiting.length > 0) {
      const worker = this.#idle.pop() ?? (this.#started < this.#limits.threads ? this.#start() : undefined);
      if (!worker) return;
      const job = this.#waiting.shift() as Job<In, Out>;
      this.#busy.set(worker, job);
      worker.ref();
      worker.postMessage({ id: job.id, ...job.input });
    }
  }

  #start(): Worker {
    this.#started++;
    const worker = new Worker(this.#script);
    worker.on('message', (answer: ThreadAnswer<Out>) => {
      const job = this.#busy.get(worker);
      this.#busy.delete(worker);
      worker.unref();
      if (this.#retired && this.#waiting.length === 0) void worker.terminate();
      else this.#idle.push(worker);
      if (job) {
        if (answer.error === undefined) job.resolve(answer.value);
        else job.reject(new Error(answer.error));
      }
      this.#pump();
    });
    worker.on('error', (error) => this.#lost(worker, error));
    worker.on('exit', (code) => this.#lost(worker, new Error(`exit code ${code}`)));
    return worker;
  }

  /** A thread that died: its job fails, the next job starts a new one. */
  #lost(worker: Worker, cause: Error): void {
    const job = this.#busy.get(worker);
    if (!this.#busy.delete(worker)) {
      const at = this.#idle.indexOf(worker);
      if (at < 0) return;
      this.#idle.splice(at, 1);
    }
    this.#started--;
    job?.reject(new WorkerLost(this.#what, cause));
    this.#pump();
  }
}

/**
 * The one pool of a kind a process uses, made with default limits on first import and replaced
 * when the configuration at start asks for other limits (the old one's threads end as they finish).
 */
export function sharedPool<P extends { readonly limits: WorkerPoolLimits; retire(): void }>(
  make: (limits?: WorkerPoolLimits) => P,
): { current(): P; configure(limits: WorkerPoolLimits): void } {
  let pool = make();
  return {
    current: () => pool,
    configure(limits) {
      if (pool.limits.threads === limits.threads && pool.limits.queue === limits.queue) return;
      pool.retire();
      pool = make(limits);
    },
  };
}
