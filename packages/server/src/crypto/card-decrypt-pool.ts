import { availableParallelism } from 'node:os';
import type { DecryptJob } from './card-decrypt-thread.ts';
import type { CardJweAlg } from './card-jwe.ts';
import { sharedPool, WorkerPool, type WorkerPoolLimits } from './worker-pool.ts';

const THREAD = new URL(
  import.meta.url.endsWith('.ts') ? './card-decrypt-thread.ts' : './card-decrypt-thread.js',
  import.meta.url,
);

/** Every card-decryption thread is busy and the queue is full: a 503 the widget retries. */
export class CardDecryptionBusy extends Error {
  constructor() {
    super('card decryption is at capacity');
    this.name = 'CardDecryptionBusy';
  }
}

export type CardDecryptLimits = WorkerPoolLimits;

/**
 * Two threads where there are two cores or more (an EC decryption is ~0.1 ms of one core, so two
 * keep up with several thousand confirms a second); the queue holds a burst of a few hundred
 * confirms (a few tens of ms of work) before answering 503.
 */
export const DEFAULT_CARD_DECRYPT_LIMITS: CardDecryptLimits = {
  threads: Math.min(2, availableParallelism()),
  queue: 256,
};

export interface PrivateKeyRef {
  kid: string;
  alg: CardJweAlg;
  privateJwk: DecryptJob['privateJwk'];
}

/** Card JWEs decrypted on threads of their own, never on libuv's shared pool (decision 0251). */
export class CardDecryptPool extends WorkerPool<Omit<DecryptJob, 'id'>, Uint8Array> {
  constructor(limits: CardDecryptLimits = DEFAULT_CARD_DECRYPT_LIMITS) {
    super(THREAD, { what: 'card decryption', limits, busy: () => new CardDecryptionBusy() });
  }

  /**
   * The plaintext of `jwe`. Rejects with CardDecryptionBusy when full, WorkerLost when the
   * thread died on it, and an Error naming what is wrong with a ciphertext it refuses.
   */
  decrypt(jwe: string, key: PrivateKeyRef): Promise<Uint8Array> {
    return this.run({ jwe, kid: key.kid, alg: key.alg, privateJwk: key.privateJwk });
  }
}

const shared = sharedPool((limits?: CardDecryptLimits) => new CardDecryptPool(limits));

/** The process's pool; `configureCardDecryption` sets its limits at start. */
export const cardDecryptPool = (): CardDecryptPool => shared.current();

export const configureCardDecryption = (limits: CardDecryptLimits): void => shared.configure(limits);
