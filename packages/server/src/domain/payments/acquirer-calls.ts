import type { AuthorizeOutcome } from './ports.ts';

/**
 * Shared by live connectors (next to the port): our own outer deadline around an SDK call,
 * whatever the SDK does with its own timeout. A call past its deadline may still reach the
 * acquirer: its outcome is unknown, never a failure (decision 0041).
 */
export class DeadlinePassed extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'DeadlinePassed';
  }
}

export async function withDeadline<T>(ms: number, call: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlinePassed(ms)), ms);
  });
  try {
    return await Promise.race([call(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A reconciler's read of an acquirer (the port's `lookup`): the outcome once it is decided,
 * null while the acquirer cannot say (not found yet, undecided, or not reachable: `failed`
 * is told and the next pass asks again).
 */
export async function decidedOrNull<P>(
  find: () => Promise<P | null>,
  outcomeOf: (found: P) => AuthorizeOutcome,
  failed: (error: unknown) => void,
): Promise<AuthorizeOutcome | null> {
  try {
    const found = await find();
    if (!found) return null;
    const outcome = outcomeOf(found);
    return outcome.kind === 'unknown' ? null : outcome;
  } catch (error) {
    failed(error);
    return null;
  }
}
