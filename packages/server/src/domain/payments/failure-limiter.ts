import type { Clock } from '../../clock.ts';
import { MINUTE } from '../../clock.ts';
import { clientNetwork } from '../client-network.ts';
import type { WindowCounters } from '../window-counters.ts';

/** Declined or failed attempts an intent may have before it refuses more (card testing). */
export const MAX_FAILED_ATTEMPTS_PER_INTENT = 10;
/** Declined or failed attempts one client network may cause per minute, across all intents. */
export const MAX_FAILURES_PER_IP_PER_MINUTE = 20;
const SCOPE = 'payment_failures';

/**
 * Counts failed payments per client network (an IPv4 address, an IPv6 /64) per minute, in
 * counters every process shares, so a card tester spread over several processes meets one
 * limit (docs/decisions/0008-card-testing-limits.md, 0071).
 */
export class FailureLimiter {
  readonly #counters: WindowCounters;
  readonly #clock: Clock;
  readonly #limit: number;

  constructor(counters: WindowCounters, clock: Clock, limit = MAX_FAILURES_PER_IP_PER_MINUTE) {
    this.#counters = counters;
    this.#clock = clock;
    this.#limit = limit;
  }

  async isBlocked(ip: string): Promise<boolean> {
    return (await this.#counters.count(SCOPE, clientNetwork(ip), MINUTE, this.#clock.now())) >= this.#limit;
  }

  async record(ip: string): Promise<void> {
    await this.#counters.increment(SCOPE, clientNetwork(ip), MINUTE, this.#clock.now());
  }
}
