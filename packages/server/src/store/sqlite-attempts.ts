import type { EventDraft } from '../domain/events.ts';
import type { PaymentIntent } from '../domain/intents.ts';
import type { AttemptRules } from '../domain/payments/ports.ts';
import { type Transaction, TX_STATUS } from '../domain/transactions.ts';
import { AS_READ, asRead, FINISHED_COLUMNS, type FinishChange } from './attempt-hot-paths.ts';
import { appendEventsSql, eventParams, eventRow } from './event-insert.ts';
import { transactionRow } from './repos/transactions.ts';
import type { TransactionsTable } from './schema.ts';
import type { Statement } from './sqlite-writer.ts';

/**
 * A confirm's two writes on SQLite as units of the writer thread (decision 0255): the same
 * statements as PaymentsRepository's, prepared once, each compare-and-set a guard of the unit.
 */

let insertTransaction: { sql: string; columns: Array<keyof TransactionsTable> } | undefined;
/**
 * The insert of a whole transaction row, named by the row's own columns. Its parameters are an
 * array: handing the writer thread an object of 45 keys cost more than its statement.
 */
function insertTransactionOf(row: TransactionsTable): Statement {
  if (!insertTransaction) {
    const columns = Object.keys(row) as Array<keyof TransactionsTable>;
    insertTransaction = {
      sql: `insert into transactions (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
      columns,
    };
  }
  return { sql: insertTransaction.sql, params: insertTransaction.columns.map((column) => row[column]) };
}

/** requires_payment | failed -> processing, on the intent as read (`is`: equal, nulls too). */
const BEGIN_INTENT = `update payment_intents set status = 'processing', last_transaction_id = ?, updated_at = ?
  where id = ? and account_id = ? and status in ('requires_payment', 'failed') and amount = ?
    and expires_at > ? and failed_attempts < ? and ${AS_READ.map((c) => `${c} is ?`).join(' and ')}`;

/** One slot of a window, only under its limit (repos/rate-counters.ts takeSlot). */
const TAKE_SLOT = `insert into rate_counters (scope, subject, window_start, count, expires_at) values (?, ?, ?, 1, ?)
  on conflict (scope, subject, window_start) do update set count = rate_counters.count + 1
  where rate_counters.count < ?`;

const GIVE_SLOT_BACK = `update rate_counters set count = count - 1
  where scope = ? and subject = ? and window_start = ? and count > 0`;

const USE_CIPHERTEXT = `insert into card_ciphertext_uses (jti, account_id, payment_intent_id, used_at, expires_at)
  values (?, ?, ?, ?, ?) on conflict (jti) do nothing`;

/** The pending attempt's final state; a review raised meanwhile (the reconciler's) is kept. */
const FINISH_TRANSACTION = `update transactions set ${FINISHED_COLUMNS.map((c) => `${c} = ?`).join(', ')},
    review_requested_at = coalesce(review_requested_at, ?),
    review_reason = coalesce(review_reason, ?)
  where id = ? and account_id = ? and status = ${TX_STATUS.pending}`;
const FINISH_PARAMS = [
  ...FINISHED_COLUMNS,
  'review_requested_at',
  'review_reason',
  'id',
  'account_id',
] as const satisfies ReadonlyArray<keyof TransactionsTable>;

/** processing -> the attempt's outcome, on the intent as known. */
const FINISH_INTENT = `update payment_intents set status = ?, updated_at = ?, capture_before = ?,
    failed_attempts = failed_attempts + ?
  where id = ? and account_id = ? and status = 'processing' and last_transaction_id = ? and updated_at = ?`;

function events(drafts: EventDraft[], now: number): Statement[] {
  if (drafts.length === 0) return [];
  return [{ sql: appendEventsSql(false, drafts.length), params: drafts.flatMap((d) => eventParams(eventRow(d, now))) }];
}

/** Guards of the begin unit, by what stopped it. */
export const BEGIN_GUARDS = { lost: 'lost', slots: 'rate_limited', replayed: 'replayed' } as const;

export function beginUnit(
  intent: PaymentIntent,
  tx: Transaction,
  rules: AttemptRules,
  drafts: EventDraft[],
): Statement[] {
  const { now, slot, ciphertext: use } = rules;
  const row = transactionRow(tx);
  return [
    {
      sql: BEGIN_INTENT,
      params: [tx.id, now, intent.id, intent.accountId, tx.amount, now, rules.maxFailedAttempts, ...asRead(intent)],
      guard: BEGIN_GUARDS.lost,
    },
    {
      sql: TAKE_SLOT,
      params: [slot.scope, slot.subject, slot.windowStart, slot.windowStart + slot.windowMs, slot.limit],
      guard: BEGIN_GUARDS.slots,
    },
    {
      sql: USE_CIPHERTEXT,
      params: [use.jti, use.accountId, use.paymentIntentId, use.usedAt, use.expiresAt],
      guard: BEGIN_GUARDS.replayed,
    },
    insertTransactionOf(row),
    ...events(drafts, now),
  ];
}

export const FINISH_GUARDS = { finished: 'finished', intentChanged: 'intent_changed' } as const;

export function finishUnit(
  intent: PaymentIntent,
  tx: Transaction,
  change: FinishChange,
  drafts: EventDraft[],
): Statement[] {
  const { release } = change;
  const row = transactionRow(tx);
  return [
    { sql: FINISH_TRANSACTION, params: FINISH_PARAMS.map((column) => row[column]), guard: FINISH_GUARDS.finished },
    {
      sql: FINISH_INTENT,
      params: [
        change.intentStatus,
        tx.updatedAt,
        change.captureBefore ?? null,
        change.intentStatus === 'failed' ? 1 : 0,
        intent.id,
        intent.accountId,
        tx.id,
        intent.updatedAt,
      ],
      guard: FINISH_GUARDS.intentChanged,
    },
    ...events(drafts, tx.updatedAt),
    ...(release ? [{ sql: GIVE_SLOT_BACK, params: [release.scope, release.subject, release.windowStart] }] : []),
  ];
}
