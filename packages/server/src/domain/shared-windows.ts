import type { Clock } from '../clock.ts';

/** One subject's count in one fixed window, as a process adds it to the shared totals. */
export interface WindowCount {
  scope: string;
  subject: string;
  windowStart: number;
  count: number;
}

/**
 * Window totals every process shares (the database), read and added to in batches by a
 * periodic sync instead of once per request (decision 0150).
 */
export interface SharedWindowTotals {
  /** Adds each count to its window's total (0 reads it) and answers every total after the addition. */
  add(counts: WindowCount[], windowMs: number): Promise<WindowCount[]>;
  /** Marks process `processId` as counting now; answers how many processes counted in the last few seconds. */
  processes(processId: string, now: number): Promise<number>;
}

interface Counter {
  windowStart: number;
  /** Everyone's total at the last sync, this process's synced part included. */
  shared: number;
  /** What this process admitted since its last sync. */
  unsynced: number;
  /** What this process added to `shared` so far. */
  own: number;
  synced: boolean;
  /** Another process counted this subject in this window. */
  othersSeen: boolean;
  /** In the previous window this process counted the subject and no other process did. */
  aloneBefore: boolean;
}

/**
 * Fixed-window request counters kept in this process's memory, so admitting a request
 * costs no database round trip. With `shared` (PostgreSQL, several processes), `sync()`
 * adds the local counts to the shared totals and reads everyone's back. Between two syncs a
 * process admits at most a share of what was left at its last sync: ⌈left / 2P⌉ with P
 * processes counting, ⌈left / 2⌉ while it is the only one that counted the subject lately,
 * all of it when it is the only process. A window then admits at most
 * limit + (P − 1) × ⌈limit / 2P⌉ (under 1.5 × limit) across P processes, and about the
 * limit when requests keep coming (decision 0150).
 */
export class WindowLimiter {
  readonly #clock: Clock;
  readonly #windowMs: number;
  readonly #shared: SharedWindowTotals | null;
  readonly #processId: string;
  readonly #counters = new Map<string, Counter>();
  #processes = 1;
  #sweptWindow = 0;
  #syncing: Promise<void> | null = null;
  #lastBeat = 0;

  constructor(clock: Clock, options: { windowMs: number; shared?: SharedWindowTotals; processId?: string }) {
    this.#clock = clock;
    this.#windowMs = options.windowMs;
    this.#shared = options.shared ?? null;
    this.#processId = options.processId ?? 'local';
  }

  /**
   * Counts one request of `subject` against `limit` per window. Answers 0 when admitted,
   * otherwise the milliseconds until the window ends (the request is not counted).
   */
  take(scope: string, subject: string, limit: number): number {
    const now = this.#clock.now();
    const windowStart = now - (now % this.#windowMs);
    if (windowStart !== this.#sweptWindow) this.#sweep(windowStart);
    const id = `${scope}\u0000${subject}`;
    let counter = this.#counters.get(id);
    if (counter?.windowStart !== windowStart) {
      const previous = counter?.windowStart === windowStart - this.#windowMs ? counter : undefined;
      counter = {
        windowStart,
        shared: 0,
        unsynced: 0,
        own: 0,
        synced: false,
        othersSeen: false,
        aloneBefore: previous?.synced === true && !previous.othersSeen,
      };
      this.#counters.set(id, counter);
    }
    if (counter.shared + counter.unsynced >= limit || counter.unsynced >= this.#share(counter, limit)) {
      return windowStart + this.#windowMs - now;
    }
    counter.unsynced += 1;
    return 0;
  }

  /** What this process may admit before its next sync, of what was left at its last one. */
  #share(counter: Counter, limit: number): number {
    const left = limit - counter.shared;
    if (!this.#shared || this.#processes === 1) return left;
    const alone = counter.aloneBefore && !counter.othersSeen;
    return Math.max(1, Math.ceil(left / (2 * (alone ? 1 : this.#processes))));
  }

  /** How many processes share the limits, as the last sync learnt it. */
  get processes(): number {
    return this.#processes;
  }

  /** Adds this process's counts of the current window to the shared totals and reads them back; one at a time. */
  sync(): Promise<void> {
    this.#syncing ??= this.#syncOnce().finally(() => {
      this.#syncing = null;
    });
    return this.#syncing;
  }

  /** Waits for a sync under way, if any (so the database can be closed after it). */
  async idle(): Promise<void> {
    await this.#syncing?.catch(() => {});
  }

  async #syncOnce(): Promise<void> {
    if (!this.#shared) return;
    const now = this.#clock.now();
    const windowStart = now - (now % this.#windowMs);
    this.#sweep(windowStart);
    const batch: Array<{ counter: Counter; count: WindowCount }> = [];
    for (const [id, counter] of this.#counters) {
      // Nothing new here and nobody else counting it: nothing to add or to learn.
      if (counter.windowStart !== windowStart || (counter.unsynced === 0 && !counter.othersSeen)) continue;
      const [scope = '', subject = ''] = id.split('\u0000');
      batch.push({ counter, count: { scope, subject, windowStart, count: counter.unsynced } });
    }
    // An idle process says it is alive once a second, so busy ones keep counting it.
    if (batch.length === 0 && now - this.#lastBeat < 1000) return;
    this.#lastBeat = now;
    this.#processes = Math.max(1, await this.#shared.processes(this.#processId, now));
    if (batch.length === 0) return;
    const totals = await this.#shared.add(
      batch.map((entry) => entry.count),
      this.#windowMs,
    );
    const byId = new Map(totals.map((total) => [`${total.scope}\u0000${total.subject}`, total.count]));
    for (const { counter, count } of batch) {
      const total = byId.get(`${count.scope}\u0000${count.subject}`);
      if (total === undefined) continue;
      // What was admitted while the sync ran stays unsynced for the next one.
      counter.unsynced -= count.count;
      counter.own += count.count;
      counter.shared = total;
      counter.synced = true;
      if (total > counter.own) counter.othersSeen = true;
    }
  }

  /** Forgets the counters of windows before the previous one: they no longer decide anything. */
  #sweep(windowStart: number): void {
    this.#sweptWindow = windowStart;
    for (const [id, counter] of this.#counters) {
      if (counter.windowStart < windowStart - this.#windowMs) this.#counters.delete(id);
    }
  }
}
