/**
 * A password-hashing thread (crypto/password-hash-pool.ts is its other side): scrypt runs here,
 * synchronously, so it never takes a slot of libuv's thread pool. Plain Node only: this file
 * runs outside the app's module graph.
 */
import { scryptSync } from 'node:crypto';
import { parentPort } from 'node:worker_threads';

/** What the pool posts to this thread: one scrypt to run. */
export interface HashJob {
  id: number;
  password: string;
  salt: Uint8Array;
  keyBytes: number;
  N: number;
  r: number;
  p: number;
}

parentPort?.on('message', (job: HashJob) => {
  try {
    const maxmem = 256 * job.N * job.r + 1024 * 1024;
    const key = scryptSync(job.password, job.salt, job.keyBytes, { N: job.N, r: job.r, p: job.p, maxmem });
    parentPort?.postMessage({ id: job.id, value: key });
  } catch (error) {
    parentPort?.postMessage({ id: job.id, error: (error as Error).message });
  }
});
