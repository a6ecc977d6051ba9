let current: Promise<void> | undefined;

/**
 * Resolves in the check phase of this turn of the event loop (`setImmediate`), once for every
 * caller of the turn (decision 0188). The hot reads wait for it: under load one turn's poll
 * phase runs the callbacks of many connections, and the requests that reached their read
 * then go on together, breadth first through the microtask queue: all their SQLite reads back
 * to back, then all their responses serialized and written, each step with its code and data
 * still in the CPU's caches, instead of every request running the whole way on its own.
 * With no load a turn has one caller, which waits microseconds.
 */
export function endOfTurn(): Promise<void> {
  current ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      current = undefined;
      resolve();
    }),
  );
  return current;
}

/**
 * A query of a read that is not a hot path (a list), run at the end of the turn with the turn's
 * other reads, its caller answered at the end of the turn its result came in, with the other
 * answers of that turn. Waiting after the query as well matters where queries queue for a
 * connection (Kysely's one SQLite connection, a pool): without it, each answer's serialization
 * and write ran between the next queries (decision 0188). Never inside a transaction: it would
 * hold the transaction open across turns.
 */
export async function readAtEndOfTurn<T>(query: () => Promise<T>): Promise<T> {
  await endOfTurn();
  const result = await query();
  await endOfTurn();
  return result;
}
