import { DAY } from '../../clock.ts';
import { PAYMENT_STATUSES, type PaymentFilter, type PaymentStatus } from '../../domain/dashboard/payment-list.ts';
import { invalidParam } from '../../domain/errors.ts';
import type { Mode } from '../../domain/intents.ts';

export const FILTER_FIELDS = ['status', 'from', 'to', 'min', 'max', 'externalid', 'reference', 'last4'] as const;
export type FilterQuery = Partial<Record<(typeof FILTER_FIELDS)[number], string>>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const AMOUNT = /^(\d{1,6})(?:\.(\d{1,2}))?$/;

/** "12.5" -> 1250: decimal text to minor units with integer arithmetic only. */
export function minorUnitsOf(text: string, param: string): number {
  const match = AMOUNT.exec(text.trim());
  if (!match) throw invalidParam(param, `${param} must be an amount like 12.50.`);
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

function dayStart(text: string, param: string): number {
  const ms = DATE.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(ms)) throw invalidParam(param, `${param} must be a date like 2026-11-04.`);
  return ms;
}

/** The list's query string to a filter of the store; empty fields filter nothing. */
export function paymentFilter(query: FilterQuery, mode: Mode): PaymentFilter {
  const filter: PaymentFilter = { mode };
  if (query.status) {
    if (!(PAYMENT_STATUSES as readonly string[]).includes(query.status)) {
      throw invalidParam('status', 'status must be one of the listed statuses.');
    }
    filter.status = query.status as PaymentStatus;
  }
  if (query.from) filter.createdFrom = dayStart(query.from, 'from');
  if (query.to) filter.createdTo = dayStart(query.to, 'to') + DAY - 1;
  if (query.min) filter.amountMin = minorUnitsOf(query.min, 'min');
  if (query.max) filter.amountMax = minorUnitsOf(query.max, 'max');
  if (query.externalid) filter.externalid = query.externalid.slice(0, 255);
  if (query.reference) filter.reference = query.reference.slice(0, 255);
  if (query.last4) {
    if (!/^\d{4}$/.test(query.last4)) throw invalidParam('last4', 'last4 must be the last 4 digits of a card.');
    filter.last4 = query.last4;
  }
  return filter;
}
