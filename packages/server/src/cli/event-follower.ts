/** An event as GET /api/v1/events lists it (the webhook body). */
export interface ListedEvent {
  id: string;
  type: string;
  created: number;
  mode: 'live' | 'sandbox';
  [field: string]: unknown;
}

export type FetchEvents = (startingAfter?: string) => Promise<{ data: ListedEvent[]; has_more: boolean }>;

/**
 * Events committed a little out of order (one transaction slower than another) still turn
 * up this long after newer ones; the follower looks back this far on every poll.
 */
export const LOOK_BACK_S = 30;

/**
 * Follows the events API from now on, for `obolus listen`. The list is newest first and
 * event ids are random, so there is no cursor for "after X"; instead every poll reads back
 * to LOOK_BACK_S before the newest event seen, and forwards the ids it has not seen yet.
 */
export class EventFollower {
  readonly #fetch: FetchEvents;
  readonly #seen = new Map<string, number>();
  #horizon = 0;

  constructor(fetch: FetchEvents) {
    this.#fetch = fetch;
  }

  /** Marks what exists now as seen: only events that happen from here on are followed. */
  async start(): Promise<void> {
    const page = await this.#fetch();
    this.#remember(page.data);
  }

  /** New events since the last poll, oldest first. */
  async poll(): Promise<ListedEvent[]> {
    const fresh: ListedEvent[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await this.#fetch(after);
      for (const event of page.data) {
        if (event.created < this.#horizon - LOOK_BACK_S) return this.#take(fresh);
        if (!this.#seen.has(event.id)) fresh.push(event);
      }
      const last = page.data.at(-1);
      if (!page.has_more || !last) return this.#take(fresh);
      after = last.id;
    }
  }

  #take(fresh: ListedEvent[]): ListedEvent[] {
    fresh.sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : 1));
    this.#remember(fresh);
    return fresh;
  }

  #remember(events: ListedEvent[]): void {
    for (const event of events) {
      this.#seen.set(event.id, event.created);
      this.#horizon = Math.max(this.#horizon, event.created);
    }
    for (const [id, created] of this.#seen) {
      if (created < this.#horizon - LOOK_BACK_S) this.#seen.delete(id);
    }
  }
}
