import type { Clock } from '../../clock.ts';
import { DAY } from '../../clock.ts';
import type { Account } from '../accounts.ts';
import type { Mode } from '../intents.ts';

export const SUMMARY_DAYS = 30;

/** Settled (captured) payments of one UTC day: `day` is its midnight in ms. */
export interface DaySettled {
  day: number;
  amount: number;
  count: number;
}

export interface SummaryStore {
  settledPerDay(accountId: string, mode: Mode, since: number): Promise<DaySettled[]>;
  /** Finished attempts since `since`: captured, and declined or failed. */
  outcomes(accountId: string, mode: Mode, since: number): Promise<{ succeeded: number; failed: number }>;
}

export interface Summary {
  /** One entry per day, oldest first, days without payments included. */
  days: DaySettled[];
  totalAmount: number;
  totalCount: number;
  /** Captured / finished attempts, 0..1; null when nothing finished. */
  successRate: number | null;
}

/** The home page: settled volume and count per day over the last 30 days, and the success rate. */
export async function dashboardSummary(
  store: SummaryStore,
  clock: Clock,
  account: Account,
  mode: Mode,
): Promise<Summary> {
  const today = Math.floor(clock.now() / DAY) * DAY;
  const since = today - (SUMMARY_DAYS - 1) * DAY;
  const [settled, outcomes] = await Promise.all([
    store.settledPerDay(account.id, mode, since),
    store.outcomes(account.id, mode, since),
  ]);
  const byDay = new Map(settled.map((d) => [d.day, d]));
  const days = Array.from({ length: SUMMARY_DAYS }, (_, i) => {
    const day = since + i * DAY;
    return byDay.get(day) ?? { day, amount: 0, count: 0 };
  });
  const finished = outcomes.succeeded + outcomes.failed;
  return {
    days,
    totalAmount: days.reduce((sum, d) => sum + d.amount, 0),
    totalCount: days.reduce((sum, d) => sum + d.count, 0),
    successRate: finished === 0 ? null : outcomes.succeeded / finished,
  };
}
