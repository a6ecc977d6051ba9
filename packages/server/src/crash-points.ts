import { writeSync } from 'node:fs';

/**
 * Crash points: a TEST-ONLY hook that kills the process with SIGKILL at a named place, so
 * the crash-safety tests (test/crash-points.test.ts, decision 0170) can stop a server at the
 * worst moments and check what a restart finds.
 *
 * `OBOLUS_CRASH_AT=<point>[:<nth>]` arms one point, to fire the nth time it is reached (1 by
 * default). It is read once, when this module loads, and only when `OBOLUS_TEST_HOOKS=1` and
 * NODE_ENV is not `production` (config.ts refuses the variable otherwise). Unarmed,
 * `crashPoint` is a function that does nothing, the same one for every point: the
 * production path pays one call that the JIT inlines away.
 */
export const CRASH_POINTS = [
  /** The pending attempt and its events are committed; the processor was not called. */
  'after_attempt_recorded',
  /** The processor answered; its outcome is not written. */
  'after_processor_answered',
  /** Everything is committed (the idempotent response too); the status line is not written. */
  'before_response_sent',
  /** A batch of the write runner ran its units, not committed (SQLite main thread; a PostgreSQL transaction). */
  'during_group_commit',
  /** A batch of the SQLite writer thread (intent creation) ran its units, not committed. */
  'during_writer_commit',
  /** A webhook endpoint answered the POST; the delivery is not marked. */
  'during_webhook_delivery',
] as const;

export type CrashPointName = (typeof CRASH_POINTS)[number];

export interface CrashPlan {
  point: CrashPointName;
  nth: number;
}

/** The plan of `OBOLUS_CRASH_AT`, or null when absent; throws on a value that names no point. */
export function parseCrashAt(text: string | undefined): CrashPlan | null {
  if (!text) return null;
  const match = /^([a-z_]+)(?::(\d{1,6}))?$/.exec(text);
  const point = CRASH_POINTS.find((p) => p === match?.[1]);
  const nth = Number(match?.[2] ?? '1');
  if (!point || nth < 1) {
    throw new Error(`OBOLUS_CRASH_AT must be <point>[:<nth>] with a point among ${CRASH_POINTS.join(', ')}`);
  }
  return { point, nth };
}

/** Whether the environment allows test hooks at all. */
export const testHooksAllowed = (env: NodeJS.ProcessEnv) =>
  env.OBOLUS_TEST_HOOKS === '1' && env.NODE_ENV !== 'production';

/** The armed plan of this process, or null (the usual case). */
export function crashPlanOf(env: NodeJS.ProcessEnv): CrashPlan | null {
  if (!testHooksAllowed(env)) return null;
  try {
    return parseCrashAt(env.OBOLUS_CRASH_AT);
  } catch {
    return null; // config.ts says what is wrong at start-up
  }
}

const noop = (_point: CrashPointName): void => {};

function armed(plan: CrashPlan): (point: CrashPointName) => void {
  let seen = 0;
  return (point) => {
    if (point !== plan.point || ++seen !== plan.nth) return;
    // Said first, synchronously, so the test knows where the process died.
    writeSync(2, `crash point ${point}:${plan.nth} reached: SIGKILL\n`);
    process.kill(process.pid, 'SIGKILL');
  };
}

export const CRASH_PLAN = crashPlanOf(process.env);

/** Kills the process here when this point is armed (tests only); otherwise does nothing. */
export const crashPoint: (point: CrashPointName) => void = CRASH_PLAN ? armed(CRASH_PLAN) : noop;
