import { describe, expect, it } from 'vitest';
import { DEFAULT_RECOVERY, loadConfig } from '../src/config.ts';
import { CRASH_PLAN, crashPlanOf, crashPoint, parseCrashAt } from '../src/crash-points.ts';

/** The crash hook is for tests only: a stray variable must stop a start, never arm a crash. */
describe('crash points and recovery timings are test hooks', () => {
  it('this test process has none armed, and crashPoint does nothing', () => {
    expect(CRASH_PLAN).toBeNull();
    expect(() => crashPoint('after_attempt_recorded')).not.toThrow();
  });

  it('arm only with OBOLUS_TEST_HOOKS=1 outside production', () => {
    const at = { OBOLUS_CRASH_AT: 'during_group_commit:3' };
    expect(crashPlanOf({ ...at, OBOLUS_TEST_HOOKS: '1' })).toEqual({ point: 'during_group_commit', nth: 3 });
    expect(crashPlanOf(at)).toBeNull();
    expect(crashPlanOf({ ...at, OBOLUS_TEST_HOOKS: '1', NODE_ENV: 'production' })).toBeNull();
  });

  it.each([
    [{ OBOLUS_CRASH_AT: 'after_attempt_recorded' }, /test hooks only/],
    [{ OBOLUS_TEST_RECOVERY_MS: '1000' }, /test hooks only/],
    [{ OBOLUS_CRASH_AT: 'after_attempt_recorded', OBOLUS_TEST_HOOKS: '1', NODE_ENV: 'production' }, /test hooks only/],
    [{ OBOLUS_CRASH_AT: 'somewhere', OBOLUS_TEST_HOOKS: '1' }, /OBOLUS_CRASH_AT must be <point>/],
    [{ OBOLUS_CRASH_AT: 'before_response_sent:0', OBOLUS_TEST_HOOKS: '1' }, /OBOLUS_CRASH_AT must be/],
    [{ OBOLUS_TEST_RECOVERY_MS: '50', OBOLUS_TEST_HOOKS: '1' }, /100\.\.60000/],
  ])('start refused: %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('recovery keeps its safe defaults unless a test shortens it', () => {
    expect(loadConfig({}).recovery).toEqual(DEFAULT_RECOVERY);
    expect(DEFAULT_RECOVERY).toEqual({
      sweepEveryMs: 30_000,
      reconcileEveryMs: 30_000,
      interruptedAfterMs: 60_000,
      webhookLeaseMs: 60_000,
      idempotencyLockMs: 60_000,
    });
    expect(loadConfig({ OBOLUS_TEST_HOOKS: '1', OBOLUS_TEST_RECOVERY_MS: '1000' }).recovery).toEqual({
      sweepEveryMs: 1000,
      reconcileEveryMs: 1000,
      interruptedAfterMs: 1000,
      webhookLeaseMs: 1000,
      idempotencyLockMs: 1000,
    });
    expect(parseCrashAt(undefined)).toBeNull();
  });
});
