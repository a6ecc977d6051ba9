import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.ts';
import { startMaintenance } from '../src/workers/maintenance.ts';
import { periodic } from '../src/workers/periodic.ts';
import { startTestServer } from './support/server.ts';

/** A pass that waits until it is let go, counting how many ran at once. */
function gatedPass() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state = { started: 0, finished: 0, signals: [] as AbortSignal[] };
  const pass = async (signal: AbortSignal) => {
    state.started++;
    state.signals.push(signal);
    await gate;
    state.finished++;
    return state.started;
  };
  return { pass, release, state };
}

describe('periodic: the loop every background worker runs on', () => {
  it('never runs two passes at once: a second runOnce joins the pass under way', async () => {
    const { pass, release, state } = gatedPass();
    const loop = periodic(3_600_000, pass);
    const first = loop.runOnce();
    const second = loop.runOnce();
    release();
    expect(await Promise.all([first, second])).toEqual([1, 1]);
    expect(state.started).toBe(1);
    await loop.stop();
  });

  it('stop() aborts the signal of the pass under way and resolves only after that pass ends', async () => {
    const { pass, release, state } = gatedPass();
    const loop = periodic(3_600_000, pass);
    void loop.runOnce();
    let stopped = false;
    const stopping = loop.stop().then(() => {
      stopped = true;
    });
    await Promise.resolve();
    expect(state.signals[0]?.aborted).toBe(true);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(state.finished).toBe(1);
  });

  it('runs a first pass at once when asked to, without waiting for the period', async () => {
    const { pass, release, state } = gatedPass();
    const loop = periodic(3_600_000, pass, { runAtStart: true });
    expect(state.started).toBe(1);
    release();
    await loop.stop();
  });
});

describe('startMaintenance', () => {
  it('stop() waits for a housekeeping pass under way, so the database can be closed after it', async () => {
    const t = await startTestServer('sqlite');
    try {
      const maintenance = startMaintenance(t.server.services, createLogger('silent'), 3_600_000);
      const pass = maintenance.runOnce();
      await maintenance.stop();
      await expect(pass).resolves.toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
