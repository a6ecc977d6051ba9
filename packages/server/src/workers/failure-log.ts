import type { Logger } from 'pino';

/**
 * The failures of one background loop: the first of a run is logged as an error, the next at
 * debug until a pass succeeds, which is logged once. A database away for a minute is then two
 * lines per loop instead of one a second, and the log says when the loop works again.
 */
export class FailureLog {
  readonly #logger: Logger;
  readonly #failedMessage: string;
  readonly #recoveredMessage: string;
  #failing = false;

  constructor(logger: Logger, failedMessage: string, recoveredMessage: string) {
    this.#logger = logger;
    this.#failedMessage = failedMessage;
    this.#recoveredMessage = recoveredMessage;
  }

  failed(error: unknown): void {
    if (this.#failing) {
      this.#logger.debug({ err: error }, this.#failedMessage);
    } else {
      this.#failing = true;
      this.#logger.error({ err: error }, this.#failedMessage);
    }
  }

  succeeded(): void {
    if (!this.#failing) return;
    this.#failing = false;
    this.#logger.info(this.#recoveredMessage);
  }
}

/**
 * What a process logs of its PostgreSQL connections breaking: a warning, at most one every
 * 10 s (a restart breaks every connection of the pool at once).
 */
export function connectionLossLog(logger: Logger, everyMs = 10_000): (error: Error) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (error) => {
    const now = Date.now();
    if (now - last < everyMs) return;
    last = now;
    const { code, message } = error as Error & { code?: string };
    logger.warn({ cause: { code, message } }, 'database connection lost; requests get 503 until it is back');
  };
}
