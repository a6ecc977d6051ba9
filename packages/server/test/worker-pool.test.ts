import { afterEach, describe, expect, it } from 'vitest';
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
