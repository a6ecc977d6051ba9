import type pg from 'pg';
import type { EventDraft } from '../domain/events.ts';
import type { PaymentIntent } from '../domain/intents.ts';
import { CiphertextReplayed } from '../domain/payments/card-binding.ts';
import type { AttemptRules, BeginOutcome } from '../domain/payments/ports.ts';
import { type Transaction, TX_STATUS } from '../domain/transactions.ts';
import {
  AS_READ,
  type AttemptHotPaths,
  asRead,
  FINISHED_COLUMNS,
  type FinishChange,
  startedIntent,
} from './attempt-hot-paths.ts';
import { appendEventsCtes, eventParams, eventRow } from './event-insert.ts';
import { transactionRow } from './repos/transactions.ts';

/**
 * A confirm's two writes on PostgreSQL, one statement each (decision 0256): one round trip and
 * one implicit transaction instead of a Kysely transaction's seven or eight. Each first locks the
 * intent as it was read (`for update`, which waits for a concurrent writer and checks the row
 * again after it), and every later step runs only when the one before it did, so the steps are
 * a compare-and-set chain: nothing is written unless the intent is as read.
 */

const BEGIN_PARAMS = 17 + AS_READ.length;

/** The intent as read, `$18` on: every column an update or an attempt changes (AS_READ). */
const AS_READ_TYPES: Record<(typeof AS_READ)[number], string> = {
  status: 'text',
  last_transaction_id: 'text',
  failed_attempts: 'int',
  description: 'text',
  descriptor: 'text',
  reference: 'text',
  externalid: 'text',
  metadata: 'text',
  updated_at: 'bigint',
};
const asReadCondition = AS_READ.map((c, i) => `${c} is not distinct from $${18 + i}::${AS_READ_TYPES[c]}`).join(
  ' and ',
);

/** `$17`: the attempt's row as JSON, typed by the table's own row type. */
const beginSql = (columns: string, events: number) => `with known as (
    select id from payment_intents
    where id = $1 and account_id = $2 and status in ('requires_payment', 'failed') and amount = $3::bigint
      and expires_at > $4::bigint and failed_attempts < $5::int and ${asReadCondition}
    for update
  ),
  slot as (
    insert into rate_counters (scope, subject, window_start, count, expires_at)
    select $6::text, $7::text, $8::bigint, 1, $9::bigint from known
    on conflict (scope, subject, window_start) do update set count = rate_counters.count + 1
    where rate_counters.count < $10::int
    returning 1
  ),
  won as (
    update payment_intents set status = 'processing', last_transaction_id = $11::text, updated_at = $4::bigint
    where id = (select id from known) and exists (select 1 from slot)
    returning id
  ),
  ciphertext as (
    insert into card_ciphertext_uses (jti, account_id, payment_intent_id, used_at, expires_at)
    select $12::text, $13::text, $14::text, $15::bigint, $16::bigint from won
    returning jti
  ),
  attempt as (
    insert into transactions (${columns})
    select ${columns} from json_populate_record(null::transactions, $17::json)
    where exists (select 1 from ciphertext)
    returning id
  ),
  ${appendEventsCtes(BEGIN_PARAMS, events, 'attempt')}
  select (select count(*) from known)::int as known, (select count(*) from slot)::int as slot`;

const FINISH_PARAMS = 12;

/** `$5`: the attempt's final row as JSON; `$10`–`$12`: the slot to give back, or nulls. */
const finishSql = (events: number) => `with known as (
    select id from payment_intents
    where id = $1 and account_id = $2 and status = 'processing' and last_transaction_id = $3 and updated_at = $4::bigint
    for update
  ),
  finished as (
    update transactions t set ${FINISHED_COLUMNS.map((c) => `${c} = r.${c}`).join(', ')},
      review_requested_at = coalesce(t.review_requested_at, r.review_requested_at),
      review_reason = coalesce(t.review_reason, r.review_reason)
    from json_populate_record(null::transactions, $5::json) r
    where t.id = $3 and t.account_id = $2 and t.status = ${TX_STATUS.pending} and exists (select 1 from known)
    returning t.id
  ),
  moved as (
    update payment_intents set status = $6::text, updated_at = $7::bigint, capture_before = $8::bigint,
      failed_attempts = failed_attempts + $9::int
    where id = (select id from known) and exists (select 1 from finished)
    returning id
  ),
  given_back as (
    update rate_counters set count = count - 1
    where scope = $10::text and subject = $11::text and window_start = $12::bigint and count > 0
      and exists (select 1 from moved)
    returning 1
  ),
  ${appendEventsCtes(FINISH_PARAMS, events, 'moved')}
  select (select count(*) from known)::int as known, (select count(*) from finished)::int as finished`;

/** Each statement's text by its number of events (a named statement is parsed once per connection). */
const texts = new Map<string, string>();
const textOf = (name: string, build: () => string) => {
  let text = texts.get(name);
  if (text === undefined) {
    text = build();
    texts.set(name, text);
  }
  return text;
};

const eventValues = (drafts: EventDraft[], now: number) => drafts.flatMap((d) => eventParams(eventRow(d, now)));

export class PostgresAttempts implements AttemptHotPaths {
  readonly #pool: pg.Pool;
  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async beginAttempt(
    intent: PaymentIntent,
    tx: Transaction,
    rules: AttemptRules,
    events: EventDraft[],
  ): Promise<BeginOutcome> {
    const { now, slot, ciphertext: use } = rules;
    if (slot.limit <= 0) return { refused: 'rate_limited' };
    const row = transactionRow(tx);
    const values = [
      intent.id,
      intent.accountId,
      tx.amount,
      now,
      rules.maxFailedAttempts,
      slot.scope,
      slot.subject,
      slot.windowStart,
      slot.windowStart + slot.windowMs,
      slot.limit,
      tx.id,
      use.jti,
      use.accountId,
      use.paymentIntentId,
      use.usedAt,
      use.expiresAt,
      JSON.stringify(row),
      ...asRead(intent),
      ...eventValues(events, now),
    ];
    const name = `hot_begin_attempt_${events.length}`;
    const text = textOf(name, () => beginSql(Object.keys(row).join(', '), events.length));
    const result = await this.#pool
      .query<{ known: number; slot: number }>({ name, text, values })
      .catch((error: unknown) => {
        // The primary key of the ciphertext's uses refuses a second use: the whole statement is undone.
        const { code, table } = error as { code?: string; table?: string };
        if (code === '23505' && table === 'card_ciphertext_uses') {
          throw new CiphertextReplayed();
        }
        throw error;
      });
    const counts = result.rows[0];
    if (!counts?.known) return { refused: 'lost' };
    if (!counts.slot) return { refused: 'rate_limited' };
    return { begun: startedIntent(intent, tx, now) };
  }

  async finishAttempt(
    intent: PaymentIntent,
    tx: Transaction,
    change: FinishChange,
    events: EventDraft[],
  ): Promise<boolean | 'intent_changed'> {
    const { release } = change;
    const values = [
      intent.id,
      intent.accountId,
      tx.id,
      intent.updatedAt,
      JSON.stringify(transactionRow(tx)),
      change.intentStatus,
      tx.updatedAt,
      change.captureBefore ?? null,
      change.intentStatus === 'failed' ? 1 : 0,
      release?.scope ?? null,
      release?.subject ?? null,
      release?.windowStart ?? null,
      ...eventValues(events, tx.updatedAt),
    ];
    const name = `hot_finish_attempt_${events.length}`;
    const text = textOf(name, () => finishSql(events.length));
    const result = await this.#pool.query<{ known: number; finished: number }>({ name, text, values });
    const row = result.rows[0];
    if (!row?.known) return 'intent_changed';
    return row.finished > 0;
  }
}
