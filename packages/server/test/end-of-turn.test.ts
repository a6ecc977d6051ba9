import { describe, expect, it } from 'vitest';
import { endOfTurn, readAtEndOfTurn } from '../src/store/end-of-turn.ts';

/**
 * Runs `first` and `second` as two timers due together, which normally run in one timers phase,
 * as the callbacks of many connections run in one poll phase. Answers what `second` returns, or
 * undefined when a loaded machine ran them in two turns (a check-phase callback ran between):
 * such a trial says nothing.
 */
function inOnePhase<T>(first: () => void, second: () => T): Promise<T | undefined> {
  return new Promise((resolve) => {
    let turnEnded = false;
    setTimeout(() => {
      first();
      setImmediate(() => {
        turnEnded = true;
      });
    }, 0);
    setTimeout(() => {
      const seen = second();
      resolve(turnEnded ? undefined : seen);
    }, 0);
  });
}

/** The hot reads wait for the end of the event loop's turn, all of a turn's together (decision 0188). */
describe('endOfTurn', () => {
  it('answers the callbacks of one phase together, after all of them have run, turn after turn', async () => {
    let samePhase = 0;
    for (let trial = 0; trial < 50 && samePhase < 5; trial++) {
      const answered: string[] = [];
      const answeredDuringTurn = await inOnePhase(
        () => void endOfTurn().then(() => answered.push('first')),
        () => {
          void endOfTurn().then(() => answered.push('second'));
          return [...answered];
        },
      );
      await endOfTurn();
      if (answeredDuringTurn === undefined) continue;
      samePhase++;
      expect({ trial, answeredDuringTurn }).toEqual({ trial, answeredDuringTurn: [] });
      expect({ trial, answered }).toEqual({ trial, answered: ['first', 'second'] });
    }
    expect(samePhase).toBe(5);
  });

  it('answers its callers in the order they asked, breadth first through the microtask queue', async () => {
    const steps: string[] = [];
    const request = async (name: string) => {
      await endOfTurn();
      steps.push(`${name} read`);
      await Promise.resolve();
      steps.push(`${name} answered`);
    };
    await Promise.all([request('a'), request('b'), request('c')]);
    expect(steps).toEqual(['a read', 'b read', 'c read', 'a answered', 'b answered', 'c answered']);
  });

  it('readAtEndOfTurn: runs the query at the end of the turn, and answers at the end of the turn its result came in', async () => {
    let samePhase = 0;
    for (let trial = 0; trial < 50 && samePhase < 5; trial++) {
      const steps: string[] = [];
      let settle: (rows: string[]) => void = () => {};
      const answered = readAtEndOfTurn(() => {
        steps.push('query');
        return new Promise<string[]>((resolve) => {
          settle = resolve;
        });
      }).then((rows) => steps.push(`answered ${rows.join()}`));
      steps.push('asked');
      await endOfTurn();
      expect(steps).toEqual(['asked', 'query']);
      // The result arrives in one callback; the caller must not go on before the turn's end,
      // as seen from a second callback of the same phase.
      const stepsLaterInPhase = await inOnePhase(
        () => settle(['row']),
        () => [...steps],
      );
      await answered;
      expect(steps).toEqual(['asked', 'query', 'answered row']);
      if (stepsLaterInPhase === undefined) continue;
      samePhase++;
      expect({ trial, stepsLaterInPhase }).toEqual({ trial, stepsLaterInPhase: ['asked', 'query'] });
    }
    expect(samePhase).toBe(5);
  });
});
