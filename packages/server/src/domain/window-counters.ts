/**
 * Counters over fixed time windows, shared by every process (the database): what a limit
 * needs to count events per subject (a client network, a session, …) within a window.
 */
export interface WindowCounters {
  /** Adds one to the subject's count in the window holding `now`; answers the new count. */
  increment(scope: string, subject: string, windowMs: number, now: number): Promise<number>;
  /** The subject's count in the window holding `now`. */
  count(scope: string, subject: string, windowMs: number, now: number): Promise<number>;
}
