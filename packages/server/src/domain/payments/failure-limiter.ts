import type { Clock } from '../../clock.ts';
import { MINUTE } from '../../clock.ts';
import { clientNetwork } from '../client-network.ts';
import type { WindowCounters, WindowSlot } from '../window-counters.ts';

/** Declined or failed attempts an intent may have before it refuses more (card testing). */
export const MAX_FAILED_ATTEMPTS_PER_INTENT = 10;
/** Declined or failed attempts one client network may cause per minute, across all intents. */
export const MAX_FAILURES_PER_IP_PER_MINUTE = 20;
const SCOPE = 'payment_failures';

/**
 * Card-testing limit per client network (an IPv4 address, an IPv6 /64) per minute, in
 * counters every process shares (docs/decisions/0008-card-testing-limits.md, 0071, 0200).
 * A slot is taken atomically before the processor is called, for every attempt in flight or
 * failed, in the very write that begins the attempt (`slot`); a payment that succeeds gives its
 * slot back. So N racing confirms from one network reach the processor at most `limit` times a
 * minute, whatever the number of processes, and confirms that lose an intent's compare-and-set
 * take none (decision 0270).
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

  /** The slot an attempt started at `at` takes, for the store to take with the attempt (PaymentStore.beginAttempt). */
  slot(ip: string, at: number): WindowSlot {
    return { scope: SCOPE, subject: clientNetwork(ip), windowMs: MINUTE, now: at, limit: this.#limit };
  }

  /** Gives back the slot of an attempt started at `at` that never failed (succeeded, or never began). */
  async release(ip: string, at: number): Promise<void> {
    await this.#counters.release(SCOPE, clientNetwork(ip), at - (at % MINUTE));
  }

  async isBlocked(ip: string): Promise<boolean> {
    return (await this.#counters.count(SCOPE, clientNetwork(ip), MINUTE, this.#clock.now())) >= this.#limit;
  }
}
