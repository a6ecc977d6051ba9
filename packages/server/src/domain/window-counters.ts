/**
 * Counters over fixed time windows, shared by every process (the database): what a limit
 * needs to count events per subject (a client network, a session, …) within a window.
 */
/** One slot to take in a subject's window: what `reserve` takes, as data a store write can carry. */
export interface WindowSlot {
  scope: string;
  subject: string;
  windowMs: number;
  now: number;
  limit: number;
}

/** Thrown inside a write that takes a `WindowSlot` of a full window: the whole write is undone. */
export class WindowFull extends Error {
  constructor() {
    super('window full');
  }
}

export interface WindowCounters {
  /** Adds one to the subject's count in the window holding `now`; answers the new count. */
  increment(scope: string, subject: string, windowMs: number, now: number): Promise<number>;
  /** The subject's count in the window holding `now`. */
  count(scope: string, subject: string, windowMs: number, now: number): Promise<number>;
  /**
   * Takes one slot of the subject's window holding `now` when fewer than `limit` are taken, in
   * one atomic statement (no check-then-act): the window's start and its count with this slot
   * when taken, null when full.
   */
  reserve(
    scope: string,
    subject: string,
    windowMs: number,
    now: number,
    limit: number,
  ): Promise<{ windowStart: number; count: number } | null>;
  /** Gives back one slot taken by `reserve` in the window starting at `windowStart`. */
  release(scope: string, subject: string, windowStart: number): Promise<void>;
}
