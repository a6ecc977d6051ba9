import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { type SharedWindowTotals, type WindowCount, WindowLimiter } from '../src/domain/shared-windows.ts';
import { reportFigure } from './support/battery.ts';

/** A window start of the manual clock. */
const WINDOW = Date.UTC(2026, 10, 23, 3, 0, 0);

/** Totals shared by simulated processes, as the database keeps them. */
class MemoryTotals implements SharedWindowTotals {
  readonly totals = new Map<string, number>();
  readonly alive = new Set<string>();
  async add(counts: WindowCount[]): Promise<WindowCount[]> {
    return counts.map((c) => {
      const id = `${c.scope}/${c.subject}/${c.windowStart}`;
      const total = (this.totals.get(id) ?? 0) + c.count;
      this.totals.set(id, total);
      return { ...c, count: total };
    });
  }
  async processes(processId: string): Promise<number> {
    this.alive.add(processId);
    return this.alive.size;
  }
}

describe('the share each process may admit between syncs', () => {
  it.each([2, 4, 8])('keeps %i processes hammered at once within limit + (P - 1) x ceil(limit / 2P)', async (p) => {
    const clock = new ManualClock(WINDOW);
    const shared = new MemoryTotals();
    const processes = Array.from(
      { length: p },
      (_, i) => new WindowLimiter(clock, { windowMs: 1000, shared, processId: `p${i}` }),
    );
    const limit = 100;
    // Running processes say they are alive once a second, idle or not: after a second each knows P.
    for (const limiter of processes) await limiter.sync();
    clock.advance(1000);
    for (const limiter of processes) await limiter.sync();
    let worst = 0;
    for (let window = 2; window < 7; window++) {
      clock.set(WINDOW + window * 1000);
      let admitted = 0;
      // Every process gets requests without pause; they sync one after another, 10 times a window.
      for (let tick = 0; tick < 10; tick++) {
        for (const limiter of processes)
          for (let i = 0; i < 50; i++) if (limiter.take('k', 'acct', limit) === 0) admitted++;
        for (const limiter of processes) await limiter.sync();
        clock.advance(100);
      }
      worst = Math.max(worst, admitted);
      expect(admitted).toBeGreaterThanOrEqual(limit * 0.95);
      expect(admitted).toBeLessThanOrEqual(limit + (p - 1) * Math.ceil(limit / (2 * p)));
    }
    reportFigure(
      `rate limit share (${p} simulated processes)`,
      `at most ${worst} admitted per window at a limit of ${limit}`,
    );
  });

  it('lets the one process of four that gets all the traffic (one keep-alive client) use the whole limit', async () => {
    const clock = new ManualClock(WINDOW);
    const shared = new MemoryTotals();
    const [busy, ...idle] = [0, 1, 2, 3].map(
      (i) => new WindowLimiter(clock, { windowMs: 1000, shared, processId: `p${i}` }),
    );
    for (const limiter of idle) await limiter.sync();
    const perWindow: number[] = [];
    for (let window = 0; window < 3; window++) {
      clock.set(WINDOW + window * 1000);
      let admitted = 0;
      for (let tick = 0; tick < 10; tick++) {
        for (let i = 0; i < 50; i++) if (busy?.take('k', 'acct', 100) === 0) admitted++;
        await busy?.sync();
        clock.advance(100);
      }
      perWindow.push(admitted);
    }
    // The first window it does not know yet that it is alone, and keeps to a quarter's pace.
    expect(perWindow[0]).toBeGreaterThanOrEqual(70);
    expect(perWindow.slice(1)).toEqual([100, 100]);
  });

  it('counts exactly in a process that is the only one', async () => {
    const clock = new ManualClock(WINDOW);
    const limiter = new WindowLimiter(clock, { windowMs: 1000, shared: new MemoryTotals(), processId: 'p0' });
    await limiter.sync();
    let admitted = 0;
    for (let i = 0; i < 150; i++) if (limiter.take('k', 'acct', 100) === 0) admitted++;
    expect(admitted).toBe(100);
    expect(limiter.take('k', 'acct', 100)).toBe(1000);
  });
});
