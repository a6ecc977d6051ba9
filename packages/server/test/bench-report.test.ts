import { describe, expect, it } from 'vitest';
import { type Run, table } from '../../../bench/report.ts';
import { SCENARIOS, type Scenario } from '../../../bench/scenarios.ts';

/** The verdicts `npm run bench` prints against issue 14's targets (docs/performance.md). */
describe('the bench table', () => {
  const run = (engine: Run['engine'], workers: number, rps: Partial<Record<Scenario, [number, number]>>): Run => ({
    engine,
    workers,
    scenarios: Object.fromEntries(
      SCENARIOS.map((name) => {
        const [ours, p99] = rps[name] ?? [1000, 5];
        return [
          name,
          {
            rps: ours,
            p50_ms: 1,
            p99_ms: p99,
            p999_ms: p99,
            errors: 0,
            baseline_rps: 10_000,
            ratio: Math.round(ours / 100) / 100,
          },
        ];
      }),
    ) as Run['scenarios'],
  });
  /** Each row as the bench prints it: engine, scenario and the target column (columns are 2+ spaces apart). */
  const verdicts = (runs: Run[]) =>
    table(runs)
      .split('\n')
      .slice(1)
      .map((line) => {
        const cells = line.trimEnd().split(/\s{2,}/);
        return `${cells[0]} ${cells[1]}: ${cells[9] ?? ''}`;
      });

  it('holds the embedded store to its ratios at their edges (exact, not as rounded for print), and create to its p99', () => {
    const sqlite = run('sqlite', 1, {
      create_intent: [3000, 15],
      retrieve_transaction: [4000, 2],
      retrieve_intent: [3999, 2],
    });
    expect(verdicts([sqlite])).toEqual([
      'sqlite create_intent: ok',
      'sqlite retrieve_transaction: ok',
      'sqlite retrieve_intent: MISSED: ratio < 0.4',
      'sqlite list_transactions: ',
      'sqlite confirm_sandbox: ',
    ]);
    const slowTail = run('sqlite', 1, { create_intent: [2999, 16] });
    expect(verdicts([slowTail])[0]).toBe('sqlite create_intent: MISSED: ratio < 0.3, p99 > 15 ms');
  });

  it('holds PostgreSQL to 2 workers beating 1, not to the embedded store ratios', () => {
    const one = run('postgres', 1, { create_intent: [2000, 40], retrieve_intent: [5000, 10] });
    const two = run('postgres', 2, {
      create_intent: [1900, 40],
      retrieve_intent: [6500, 10],
      list_transactions: [1000, 5],
    });
    expect(verdicts([one, two])).toEqual([
      'postgres x1 create_intent: ',
      'postgres x1 retrieve_transaction: ',
      'postgres x1 retrieve_intent: ',
      'postgres x1 list_transactions: ',
      'postgres x1 confirm_sandbox: ',
      'postgres x2 create_intent: MISSED: 0.95x of 1 worker',
      'postgres x2 retrieve_transaction: MISSED: 1.00x of 1 worker',
      'postgres x2 retrieve_intent: ok: 1.30x of 1 worker',
      'postgres x2 list_transactions: MISSED: 1.00x of 1 worker',
      'postgres x2 confirm_sandbox: MISSED: 1.00x of 1 worker',
    ]);
  });
});
