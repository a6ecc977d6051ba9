import type { Clock } from '../../clock.ts';
import { MINUTE } from '../../clock.ts';
import { clientNetwork } from '../client-network.ts';
import type { WindowCounters } from '../window-counters.ts';
import type { WindowSlot } from './ports.ts';

/** Declined or failed attempts an intent may have before it refuses more (card testing). */
export const MAX_FAILED_ATTEMPTS_PER_INTENT = 10;
/** Declined or failed attempts one client network may cause per minute, across all intents. */
export const MAX_FAILURES_PER_IP_PER_MINUTE = 20;
const SCOPE = 'payment_failures';

/**
 * Card-testing limit per client network (an IPv4 address, an IPv6 /64) per minute, in
 * counters every process shares (docs/decisions/0008-card-testing-limits.md, 0071, 0200).
 * A slot is taken atomically before the processor is called, for every attempt in flight or
 * failed, by the write that begins the attempt; the write that records a success gives it back
 * (slotOf names the slot; decision 0255). So N racing confirms from one network
 * reach the processor at most `limit` times a minute, whatever the number of processes.
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

  /**
   * The slot an attempt started at `at` (its createdAt) from `ip` takes, with the attempt's own
   * write (PaymentStore.beginAttempt), and gives back with its success (finishAttempt).
   */
  slotOf(ip: string, at: number): WindowSlot {
    return {
      scope: SCOPE,
      subject: clientNetwork(ip),
      windowStart: at - (at % MINUTE),
      windowMs: MINUTE,
      limit: this.#limit,
    };
  }

  async isBlocked(ip: string): Promise<boolean> {
    return (await this.#counters.count(SCOPE, clientNetwork(ip), MINUTE, this.#clock.now())) >= this.#limit;
  }
}
