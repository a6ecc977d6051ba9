import { afterAll, beforeAll } from 'vitest';

/**
 * A stand-in for what `get` answers, usable before that exists: reading a member of it reads the
 * member of `get()` at that moment (a method bound to it), setting one sets it there.
 */
export function lateBound<T extends object>(get: () => T): T {
  return new Proxy({} as T, {
    get(_, key) {
      const target = get();
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set: (_, key, value) => Reflect.set(get(), key, value),
    has: (_, key) => Reflect.has(get(), key),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor(_, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(get(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}

/**
 * For a describe block (decision 0290): `start` runs before its tests (beforeAll) and `stop` on
 * what it made after them (afterAll). The answer stands for what `start` made (`lateBound`), so
 * a file keeps it in a constant while the block is collected and uses it in tests and hooks;
 * read before the start or after the stop, it throws, naming `what`. Hooks registered later run
 * after the start and before the stop (Vitest runs after-hooks in reverse).
 */
export function useStarted<T extends object>(
  what: string,
  start: () => Promise<T>,
  stop: (started: T) => Promise<unknown>,
  /** How long the start may take, if longer than the suite's hookTimeout. */
  startTimeoutMs?: number,
): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, startTimeoutMs);
  afterAll(async () => {
    const stopping = started;
    started = undefined;
    if (stopping) await stop(stopping);
  });
  return lateBound(() => {
    if (!started) throw new Error(`${what} runs from beforeAll to afterAll: use it in a test or a hook`);
    return started;
  });
}
