/**
 * A card-decryption thread (crypto/card-decrypt-pool.ts is its other side): each card JWE is
 * decrypted here, synchronously, so it never takes a slot of libuv's shared pool (decision 0251).
 * Private keys are imported once per key id and kept for the thread's life.
 */
import type { JsonWebKey, KeyObject } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { type CardJweAlg, decryptCompact, privateKeyOf } from './card-jwe.ts';

/** What the pool posts to this thread: one JWE and the private key it names. */
export interface DecryptJob {
  id: number;
  jwe: string;
  kid: string;
  alg: CardJweAlg;
  privateJwk: JsonWebKey;
}

const keys = new Map<string, KeyObject>();

parentPort?.on('message', (job: DecryptJob) => {
  try {
    let key = keys.get(job.kid);
    if (!key) {
      key = privateKeyOf(job.privateJwk);
      keys.set(job.kid, key);
    }
    const value = decryptCompact(job.jwe, key, job.alg);
    parentPort?.postMessage({ id: job.id, value });
  } catch (error) {
    parentPort?.postMessage({ id: job.id, error: (error as Error).message });
  }
});
