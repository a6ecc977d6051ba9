import type { HashJob } from './password-hash-thread.ts';
import { sharedPool, WorkerPool, type WorkerPoolLimits } from './worker-pool.ts';

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
export class PasswordHashPool extends WorkerPool<Omit<HashJob, 'id'>, Uint8Array> {
  constructor(limits: PasswordHashLimits = DEFAULT_PASSWORD_HASH_LIMITS) {
    super(THREAD, { what: 'password hashing', limits, busy: () => new PasswordHashingBusy() });
  }

  async derive(
    password: string,
    salt: Buffer,
    keyBytes: number,
    params: { N: number; r: number; p: number },
  ): Promise<Buffer> {
    return Buffer.from(await this.run({ password, salt, keyBytes, ...params }));
  }
}

const shared = sharedPool((limits?: PasswordHashLimits) => new PasswordHashPool(limits));

/** The process's pool; `configurePasswordHashing` sets its limits at start. */
export const passwordHashPool = (): PasswordHashPool => shared.current();

export const configurePasswordHashing = (limits: PasswordHashLimits): void => shared.configure(limits);
