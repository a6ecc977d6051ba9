import { Worker } from 'node:worker_threads';
import type { HashJob } from './password-hash-thread.ts';

const THREAD = new URL(
  import.meta.url.endsWith('.ts') ? './password-hash-thread.ts' : './password-hash-thread.js',
  import.meta.url,
);

/** The pool is full: the caller answers 503 with Retry-After rather than queueing more. */
export class PasswordHashingBusy extends Error {
  constructor() {
    super('password hashing is at capacity');
    this.name = 'PasswordHashingBusy';
  }
}

export interface PasswordHashLimits {
  /** Threads hashing at once (each hash takes one core for its duration). */
  threads: number;
  /** Hashes allowed to wait for a thread; one more is refused with PasswordHashingBusy. */
  queue: number;
}

export const DEFAULT_PASSWORD_HASH_LIMITS: PasswordHashLimits = { threads: 1, queue: 8 };

interface Job extends HashJob {
  resolve(key: Buffer): void;
  reject(error: Error): void;
}

/**
 * scrypt on threads of its own (issue 25, item 1; decision 0202): never on libuv's pool,
 * where card decryption runs, and never more than `threads + queue` at once, so a sign-in
 * flood costs at most `threads` cores and is refused beyond that. Threads start on first use
 * and keep the process alive only while they have work.
 */
export class PasswordHashPool {
  readonly #limits: PasswordHashLimits;
  readonly #idle: Worker[] = [];
  readonly #busy = new Map<Worker, Job>();
  readonly #waiting: Job[] = [];
  #started = 0;
  #nextId = 1;
  #retired = false;

  constructor(limits: PasswordHashLimits = DEFAULT_PASSWORD_HASH_LIMITS) {
    this.#limits = limits;
  }

  get limits(): PasswordHashLimits {
    return this.#limits;
  }

  /** Hashes in progress or waiting. */
  get inFlight(): number {
    return this.#busy.size + this.#waiting.length;
  }

  derive(
    password: string,
    salt: Buffer,
    keyBytes: number,
    params: { N: number; r: number; p: number },
  ): Promise<Buffer> {
    if (this.inFlight >= this.#limits.threads + this.#limits.queue) return Promise.reject(new PasswordHashingBusy());
    return new Promise<Buffer>((resolve, reject) => {
      this.#waiting.push({ id: this.#nextId++, password, salt, keyBytes, ...params, resolve, reject });
      this.#pump();
    });
  }

  /** Threads end as they finish: a pool replaced by another with new limits. */
  retire(): void {
    this.#retired = true;
    for (const worker of this.#idle.splice(0)) void worker.terminate();
  }

  async close(): Promise<void> {
    const workers = [...this.#idle, ...this.#busy.keys()];
    this.#idle.length = 0;
    this.#started = 0;
    await Promise.all(workers.map((w) => w.terminate()));
  }

  #pump(): void {
    while (this.#waiting.length > 0) {
      const worker = this.#idle.pop() ?? (this.#started < this.#limits.threads ? this.#start() : undefined);
      if (!worker) return;
      const job = this.#waiting.shift() as Job;
      this.#busy.set(worker, job);
      worker.ref();
      const { resolve: _r, reject: _j, ...message } = job;
      worker.postMessage(message);
    }
  }

  #start(): Worker {
    this.#started++;
    const worker = new Worker(THREAD);
    worker.on('message', (answer: { id: number; key?: Uint8Array; error?: string }) => {
      const job = this.#busy.get(worker);
      this.#busy.delete(worker);
      worker.unref();
      if (this.#retired && this.#waiting.length === 0) void worker.terminate();
      else this.#idle.push(worker);
      if (job) {
        if (answer.key) job.resolve(Buffer.from(answer.key));
        else job.reject(new Error(answer.error ?? 'scrypt failed'));
      }
      this.#pump();
    });
    worker.on('error', (error) => this.#lost(worker, error));
    worker.on('exit', (code) => this.#lost(worker, new Error(`password hashing thread exited (${code})`)));
    return worker;
  }

  /** A thread that died: its job fails, the next job starts a new one. */
  #lost(worker: Worker, error: Error): void {
    const job = this.#busy.get(worker);
    if (!this.#busy.delete(worker)) {
      const at = this.#idle.indexOf(worker);
      if (at < 0) return;
      this.#idle.splice(at, 1);
    }
    this.#started--;
    job?.reject(error);
    this.#pump();
  }
}

let shared = new PasswordHashPool();

/** The process's pool; `configurePasswordHashing` sets its limits at start. */
export const passwordHashPool = (): PasswordHashPool => shared;

export function configurePasswordHashing(limits: PasswordHashLimits): void {
  if (shared.limits.threads === limits.threads && shared.limits.queue === limits.queue) return;
  shared.retire();
  shared = new PasswordHashPool(limits);
}
