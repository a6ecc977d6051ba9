import type { Clock } from '../../clock.ts';
import { MINUTE } from '../../clock.ts';

/** Declined or failed attempts an intent may have before it refuses more (card testing). */
export const MAX_FAILED_ATTEMPTS_PER_INTENT = 10;
/** Declined or failed attempts one client IP may cause per minute, across all intents. */
export const MAX_FAILURES_PER_IP_PER_MINUTE = 20;

/**
 * Counts recent failures per client IP in a sliding one-minute window. It lives in the
 * process: with several processes each allows its own share, which still stops card
 * testing at scale (docs/decisions/0008-card-testing-limits.md).
 */
export class FailureLimiter {
  readonly #clock: Clock;
  readonly #limit: number;
  readonly #failures = new Map<string, number[]>();

  constructor(clock: Clock, limit = MAX_FAILURES_PER_IP_PER_MINUTE) {
    this.#clock = clock;
    this.#limit = limit;
  }

  isBlocked(ip: string): boolean {
    return this.#recent(ip).length >= this.#limit;
  }

  record(ip: string): void {
    const recent = this.#recent(ip);
    recent.push(this.#clock.now());
    this.#failures.set(ip, recent);
    if (this.#failures.size > 10_000) this.#sweep();
  }

  #recent(ip: string): number[] {
    const since = this.#clock.now() - MINUTE;
    return (this.#failures.get(ip) ?? []).filter((t) => t > since);
  }

  #sweep(): void {
    for (const ip of this.#failures.keys()) if (this.#recent(ip).length === 0) this.#failures.delete(ip);
  }
}
