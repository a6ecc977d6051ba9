import type { HashJob } from './password-hash-thread.ts';
import { WorkerPool, type WorkerPoolLimits } from './worker-pool.ts';

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

export type PasswordHashLimits = WorkerPoolLimits;

export const DEFAULT_PASSWORD_HASH_LIMITS: PasswordHashLimits = { threads: 1, queue: 8 };

/**
 * scrypt on threads of its own (issue 25, item 1; decision 0202): never on libuv's pool,
 * and never more than `threads + queue` at once, so a sign-in flood costs at most `threads`
 * cores and is refused beyond that. Card decryption has a pool of its own (decision 0251).
 */
export class PasswordHashPool {
  readonly #pool: WorkerPool<Omit<HashJob, 'id'>, Uint8Array>;

  constructor(limits: PasswordHashLimits = DEFAULT_PASSWORD_HASH_LIMITS) {
    this.#pool = new WorkerPool(THREAD, { what: 'password hashing', limits, busy: () => new PasswordHashingBusy() });
  }

  get limits(): PasswordHashLimits {
    return this.#pool.limits;
  }

  /** Hashes in progress or waiting. */
  get inFlight(): number {
    return this.#pool.inFlight;
  }

  async derive(
    password: string,
    salt: Buffer,
    keyBytes: number,
    params: { N: number; r: number; p: number },
  ): Promise<Buffer> {
    return Buffer.from(await this.#pool.run({ password, salt, keyBytes, ...params }));
  }

  /** Threads end as they finish: a pool replaced by another with new limits. */
  retire(): void {
    this.#pool.retire();
  }

  close(): Promise<void> {
    return this.#pool.close();
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
