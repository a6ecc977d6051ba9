/**
 * A background loop of a `serve` process: one pass every `everyMs`, never two at once, on a
 * timer that does not keep the process alive. `stop()` clears the timer, aborts the signal the
 * pass was given (a pass checks it between calls it must not start late) and waits for a pass
 * under way, so the database can be closed after it.
 */
export interface Periodic<T> {
  /** One pass now, or the one under way. */
  runOnce(): Promise<T>;
  stop(): Promise<void>;
}

export function periodic<T>(
  everyMs: number,
  pass: (signal: AbortSignal) => Promise<T>,
  options: { runAtStart?: boolean } = {},
): Periodic<T> {
  const stopping = new AbortController();
  let running: Promise<T> | undefined;
  const runOnce = () => {
    running ??= pass(stopping.signal).finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => void runOnce(), everyMs);
  timer.unref();
  if (options.runAtStart) void runOnce();
  return {
    runOnce,
    stop: async () => {
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}
