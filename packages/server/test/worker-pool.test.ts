import { availableParallelism } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { CardDecryptionBusy, CardDecryptPool } from '../src/crypto/card-decrypt-pool.ts';
import { newCardKeyPair } from '../src/crypto/card-keyring.ts';
import { WorkerLost, WorkerPool, WorkerPoolBusy } from '../src/crypto/worker-pool.ts';

/**
 * The threads that take CPU-bound work off libuv's shared pool (scrypt, card decryption):
 * bounded, refusing rather than queueing without end, and outliving a thread that dies.
 * Threads of a test fixture hold a job until the test lets it go, so nothing here is timed.
 */
const FIXTURE = new URL('./fixtures/pool-thread.ts', import.meta.url);
type Job = { value: string; holdUntil?: SharedArrayBuffer; refuse?: boolean; die?: boolean };

const gate = () => {
  const flag = new SharedArrayBuffer(4);
  return {
    flag,
    open: () => {
      Atomics.store(new Int32Array(flag), 0, 1);
      Atomics.notify(new Int32Array(flag), 0);
    },
  };
};

let pools: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(pools.map((p) => p.close()));
  pools = [];
});
const poolOf = (threads: number, queue: number) => {
  const pool = new WorkerPool<Job, string>(FIXTURE, { what: 'test work', limits: { threads, queue } });
  pools.push(pool);
  return pool;
};

describe('a worker pool', () => {
  it('runs threads + queue jobs at once and refuses one more, then takes jobs again', async () => {
    const pool = poolOf(2, 1);
    const { flag, open } = gate();
    const held = [pool.run({ value: 'a', holdUntil: flag }), pool.run({ value: 'b', holdUntil: flag })];
    const queued = pool.run({ value: 'c' });
    expect(pool.inFlight).toBe(3);
    await expect(pool.run({ value: 'd' })).rejects.toBeInstanceOf(WorkerPoolBusy);
    expect(pool.threads).toBe(2);
    open();
    expect(await Promise.all([...held, queued])).toEqual(['a done', 'b done', 'c done']);
    expect(pool.inFlight).toBe(0);
    expect(await pool.run({ value: 'e' })).toBe('e done');
    expect(pool.threads).toBe(2);
  });

  it('a job the thread refuses fails alone; the thread goes on', async () => {
    const pool = poolOf(1, 0);
    await expect(pool.run({ value: 'x', refuse: true })).rejects.toThrow('refused x');
    expect(await pool.run({ value: 'y' })).toBe('y done');
  });

  it('a thread that dies fails its job with WorkerLost; the jobs queued behind it run on a new thread', async () => {
    const pool = poolOf(1, 2);
    const dying = pool.run({ value: 'x', die: true });
    const after = [pool.run({ value: 'y' }), pool.run({ value: 'z' })];
    await expect(dying).rejects.toBeInstanceOf(WorkerLost);
    expect(await Promise.all(after)).toEqual(['y done', 'z done']);
    expect(pool.threads).toBe(1);
    expect(pool.inFlight).toBe(0);
  });

  it('closed, it fails what waits and refuses what comes', async () => {
    const pool = poolOf(1, 1);
    const { flag } = gate();
    const held = pool.run({ value: 'a', holdUntil: flag });
    const waiting = expect(pool.run({ value: 'b' })).rejects.toThrow(/closed/);
    const lost = expect(held).rejects.toBeInstanceOf(WorkerLost);
    await pool.close();
    await waiting;
    await lost;
    await expect(pool.run({ value: 'c' })).rejects.toThrow(/closed/);
  });
});

describe('the card-decryption pool', () => {
  it('refuses with CardDecryptionBusy past threads + queue, and decrypts again after', async () => {
    const pool = new CardDecryptPool({ threads: 1, queue: 1 });
    pools.push(pool);
    const key = newCardKeyPair(0);
    const ref = { kid: key.kid, alg: 'ECDH-ES+A256KW' as const, privateJwk: key.privateJwk as never };
    // Garbage is refused by the thread, but only once a thread has taken it: it fills the pool.
    const first = pool.decrypt('a.b.c.d.e', ref);
    const second = pool.decrypt('a.b.c.d.e', ref);
    await expect(pool.decrypt('a.b.c.d.e', ref)).rejects.toBeInstanceOf(CardDecryptionBusy);
    await expect(first).rejects.toThrow(/header/);
    await expect(second).rejects.toThrow(/header/);
    await expect(pool.decrypt('a.b.c.d.e', ref)).rejects.toThrow(/header/);
  });

  it('is sized to the machine by default; its settings are read at their edges', () => {
    expect(loadConfig({}).cardDecryption).toEqual({ threads: Math.min(2, availableParallelism()), queue: 256 });
    expect(loadConfig({ OBOLUS_CARD_DECRYPT_THREADS: '1', OBOLUS_CARD_DECRYPT_QUEUE: '0' }).cardDecryption).toEqual({
      threads: 1,
      queue: 0,
    });
    expect(
      loadConfig({ OBOLUS_CARD_DECRYPT_THREADS: '64', OBOLUS_CARD_DECRYPT_QUEUE: '100000' }).cardDecryption,
    ).toEqual({ threads: 64, queue: 100_000 });
    expect(() => loadConfig({ OBOLUS_CARD_DECRYPT_THREADS: '0' })).toThrow('OBOLUS_CARD_DECRYPT_THREADS');
    expect(() => loadConfig({ OBOLUS_CARD_DECRYPT_THREADS: '65' })).toThrow('OBOLUS_CARD_DECRYPT_THREADS');
    expect(() => loadConfig({ OBOLUS_CARD_DECRYPT_QUEUE: '100001' })).toThrow('OBOLUS_CARD_DECRYPT_QUEUE');
    expect(() => loadConfig({ OBOLUS_CARD_DECRYPT_QUEUE: '-1' })).toThrow('OBOLUS_CARD_DECRYPT_QUEUE');
  });
});
