import type { Clock } from '../../clock.ts';
import { DAY } from '../../clock.ts';
import type { AccountId } from '../../ids.ts';
import type { Account } from '../accounts.ts';
import type { Mode } from '../intents.ts';

export const SUMMARY_DAYS = 30;

/** Settled (captured) payments of one UTC day: `day` is its midnight in ms. */
export interface DaySettled {
  day: number;
  amount: number;
  count: number;
}

/** An account's transactions created on one UTC day (`day`: its midnight in ms), totalled. */
export interface DayTotals {
  day: number;
  /** Captured (settled, refunded in part or whole, charged back) and their amount. */
  settledCount: number;
  settledAmount: number;
  /** Finished without a capture: declined, failed, voided, authorized and not captured yet. */
  unpaidCount: number;
  refundedAmount: number;
  chargebackCount: number;
  chargebackAmount: number;
}

export interface SummaryStore {
  /** The days since `since` (a UTC midnight) that have any, oldest first. */
  totalsPerDay(accountId: AccountId, mode: Mode, since: number): Promise<DayTotals[]>;
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
  const totals = await store.totalsPerDay(account.id, mode, since);
  const byDay = new Map(totals.map((d) => [d.day, d]));
  const days = Array.from({ length: SUMMARY_DAYS }, (_, i) => {
    const day = since + i * DAY;
    const found = byDay.get(day);
    return { day, amount: found?.settledAmount ?? 0, count: found?.settledCount ?? 0 };
  });
  const succeeded = totals.reduce((sum, d) => sum + d.settledCount, 0);
  const finished = succeeded + totals.reduce((sum, d) => sum + d.unpaidCount, 0);
  return {
    days,
    totalAmount: days.reduce((sum, d) => sum + d.amount, 0),
    totalCount: days.reduce((sum, d) => sum + d.count, 0),
    successRate: finished === 0 ? null : succeeded / finished,
  };
}
