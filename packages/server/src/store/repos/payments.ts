import { type Transaction as DbTransaction, type Kysely, type Selectable, type SelectQueryBuilder, sql } from 'kysely';
import type { EventDraft } from '../../domain/events.ts';
import type { CancellationReason, PaymentIntent } from '../../domain/intents.ts';
import { CiphertextReplayed } from '../../domain/payments/card-binding.ts';
import type {
  AttemptRules,
  BeginOutcome,
  FinishedIntentStatus,
  PaymentStore,
  WindowSlot,
} from '../../domain/payments/ports.ts';
import { type Transaction, TX_STATUS } from '../../domain/transactions.ts';
import { AS_READ, type AttemptHotPaths, asRead, finishedIntent, startedIntent } from '../attempt-hot-paths.ts';
import type { Database, TransactionsTable } from '../schema.ts';
import { TransactionPerWrite, type WriteRunner } from '../write-runner.ts';
import { recordCiphertextUse } from './card-ciphertext-uses.ts';
import { appendEvents } from './events.ts';
import { toIntent } from './intents.ts';
import { giveSlotBack, takeSlot } from './rate-counters.ts';
import { toTransaction, transactionRow } from './transactions.ts';

type AttemptsQuery = SelectQueryBuilder<Database, 'transactions', Selectable<Database['transactions']>>;

async function reloadIntent(trx: DbTransaction<Database>, id: string): Promise<PaymentIntent> {
  return toIntent(await trx.selectFrom('payment_intents').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
}

/** The pending attempt `tx` gets its final state; no row changes when it was already finished. */
function finishTransaction(trx: DbTransaction<Database>, tx: Transaction) {
  const row = transactionRow(tx);
  return trx
    .updateTable('transactions')
    .set({
      status: row.status,
      card_country: row.card_country,
      card_bank: row.card_bank,
      card_brand: row.card_brand,
      decline_code: row.decline_code,
      decline_message: row.decline_message,
      three_ds: row.three_ds,
      authorization_code: row.authorization_code,
      dispute_at: row.dispute_at,
      challenge_token: row.challenge_token,
      card_funding: row.card_funding,
      processor_payment_ref: row.processor_payment_ref,
      processor_charge_ref: row.processor_charge_ref,
      duplicate_payments: row.duplicate_payments,
      follow_up_at: row.follow_up_at,
      // A review raised meanwhile (the reconciler's) is kept.
      review_requested_at: (eb) => eb.fn.coalesce('review_requested_at', sql.val(row.review_requested_at)),
      review_reason: (eb) => eb.fn.coalesce('review_reason', sql.val(row.review_reason)),
      updated_at: row.updated_at,
    })
    .where('id', '=', tx.id)
    .where('account_id', '=', tx.accountId)
    .where('status', '=', TX_STATUS.pending)
    .executeTakeFirst();
}

/** Thrown inside a unit whose card-testing slot could not be taken: the unit is undone. */
class SlotsTaken extends Error {}

/**
 * The state machine's writes. Each is a conditional UPDATE whose row count says whether
 * this request won; the loser's transaction changes nothing. No read-modify-write.
 */
/** What recordFollowUp compares with the attempt as read (updated_at alone repeats within a millisecond). */
const FOLLOW_UP_AS_READ = [
  'updated_at',
  'status',
  'reversal',
  'duplicate_payments',
  'follow_up_at',
  'review_requested_at',
  'review_reason',
  'processor_payment_ref',
  'processor_charge_ref',
] as const satisfies ReadonlyArray<keyof TransactionsTable>;

export class PaymentsRepository implements PaymentStore {
  readonly #db: Kysely<Database>;
  readonly #writes: WriteRunner;
  readonly #hot: AttemptHotPaths | undefined;
  constructor(db: Kysely<Database>, writes: WriteRunner = new TransactionPerWrite(db), hot?: AttemptHotPaths) {
    this.#db = db;
    this.#writes = writes;
    this.#hot = hot;
  }

  async beginAttempt(
    intent: PaymentIntent,
    tx: Transaction,
    rules: AttemptRules,
    events: (intent: PaymentIntent) => EventDraft[],
  ): Promise<BeginOutcome> {
    const after = startedIntent(intent, tx, rules.now);
    if (this.#hot?.beginAttempt) return this.#hot.beginAttempt(intent, tx, rules, events(after));
    const read = asRead(intent);
    return this.#writes
      .run(async (trx): Promise<BeginOutcome> => {
        let update = trx
          .updateTable('payment_intents')
          .set({ status: 'processing', last_transaction_id: tx.id, updated_at: rules.now })
          .where('id', '=', tx.paymentIntentId)
          .where('account_id', '=', tx.accountId)
          .where('status', 'in', ['requires_payment', 'failed'])
          // The amount the shopper was shown: an update by the merchant meanwhile wins (decision 0242).
          .where('amount', '=', tx.amount)
          .where('expires_at', '>', rules.now)
          .where('failed_attempts', '<', rules.maxFailedAttempts);
        // As read: the intent after is known without reading it again (decision 0255).
        for (const [i, column] of AS_READ.entries()) {
          const value = read[i] as string | number | null;
          update = value === null ? update.where(column, 'is', null) : update.where(column, '=', value);
        }
        const won = await update.executeTakeFirst();
        if (won.numUpdatedRows === 0n) return { refused: 'lost' };
        // Thrown, not returned: the intent's change above is undone with the unit.
        if (!(await takeSlot(trx, rules.slot))) throw new SlotsTaken();
        if (!(await recordCiphertextUse(trx, rules.ciphertext))) throw new CiphertextReplayed();
        await trx.insertInto('transactions').values(transactionRow(tx)).execute();
        await appendEvents(trx, events(after), rules.now);
        return { begun: after };
      })
      .catch((error: unknown) => {
        if (error instanceof SlotsTaken) return { refused: 'rate_limited' };
        throw error;
      });
  }

  async finishAttempt(
    known: PaymentIntent,
    tx: Transaction,
    intentStatus: FinishedIntentStatus,
    events: (intent: PaymentIntent) => EventDraft[],
    change: { captureBefore?: number; release?: WindowSlot } = {},
  ): Promise<PaymentIntent | null> {
    if (this.#hot?.finishAttempt) {
      const after = finishedIntent(known, tx, intentStatus, change.captureBefore);
      const finished = await this.#hot.finishAttempt(known, tx, { intentStatus, ...change }, events(after));
      if (finished !== 'intent_changed') return finished ? after : null;
      // The intent changed since it was read (rare): written as below, with the intent as it is now.
    }
    return this.#writes.run(async (trx) => {
      const finished = await finishTransaction(trx, tx);
      if (finished.numUpdatedRows === 0n) return null;
      const moved = await trx
        .updateTable('payment_intents')
        .set((eb) => ({
          status: intentStatus,
          updated_at: tx.updatedAt,
          capture_before: change.captureBefore ?? null,
          failed_attempts: intentStatus === 'failed' ? eb('failed_attempts', '+', 1) : eb.ref('failed_attempts'),
        }))
        .where('id', '=', tx.paymentIntentId)
        .where('account_id', '=', tx.accountId)
        .where('status', '=', 'processing')
        .where('last_transaction_id', '=', tx.id)
        .returningAll()
        .executeTakeFirst();
      const intent = moved ? toIntent(moved) : await reloadIntent(trx, tx.paymentIntentId);
      await appendEvents(trx, events(intent), tx.updatedAt);
      if (change.release) await giveSlotBack(trx, change.release);
      return intent;
    });
  }

  async awaitChallenge(tx: Transaction): Promise<boolean> {
    const result = await this.#writes.run((trx) =>
      trx
        .updateTable('transactions')
        .set({
          challenge_token: tx.challengeToken,
          processor_challenge_ref: tx.processorChallengeRef,
          challenge_redirect_url: tx.challengeRedirectUrl,
          card_country: tx.cardCountry,
          card_bank: tx.cardBank,
          card_brand: tx.card.brand,
          card_funding: tx.cardFunding,
          processor_payment_ref: tx.processorPaymentRef,
          processor_charge_ref: tx.processorChargeRef,
          updated_at: tx.updatedAt,
        })
        .where('id', '=', tx.id)
        .where('account_id', '=', tx.accountId)
        .where('status', '=', TX_STATUS.pending)
        .executeTakeFirst(),
    );
    return result.numUpdatedRows > 0n;
  }

  expire(
    intent: PaymentIntent,
    now: number,
    events: (intent: PaymentIntent) => EventDraft[],
  ): Promise<PaymentIntent | null> {
    return this.#writes.run(async (trx) => {
      const won = await trx
        .updateTable('payment_intents')
        .set({ status: 'expired', updated_at: now })
        .where('id', '=', intent.id)
        .where('account_id', '=', intent.accountId)
        .where('status', '=', intent.status)
        .where('expires_at', '<=', now)
        .returningAll()
        .executeTakeFirst();
      if (!won) return null;
      const expired = toIntent(won);
      await appendEvents(trx, events(expired), now);
      return expired;
    });
  }

  cancel(
    intent: PaymentIntent,
    change: { now: number; reason: CancellationReason | null; voided?: Transaction },
    events: (intent: PaymentIntent) => EventDraft[],
  ): Promise<PaymentIntent | null> {
    return this.#writes.run(async (trx) => {
      let update = trx
        .updateTable('payment_intents')
        .set({
          status: 'canceled',
          canceled_at: change.now,
          cancellation_reason: change.reason,
          capture_before: null,
          updated_at: change.now,
        })
        .where('id', '=', intent.id)
        .where('account_id', '=', intent.accountId)
        .where('status', '=', intent.status);
      update =
        intent.lastTransactionId === null
          ? update.where('last_transaction_id', 'is', null)
          : update.where('last_transaction_id', '=', intent.lastTransactionId);
      const won = await update.returningAll().executeTakeFirst();
      if (!won) return null;
      const { voided } = change;
      if (voided) {
        await trx
          .updateTable('transactions')
          .set({ status: voided.status, reversal: voided.reversal, updated_at: voided.updatedAt })
          .where('id', '=', voided.id)
          .where('account_id', '=', voided.accountId)
          .where('status', '=', TX_STATUS.authorized)
          .execute();
      }
      const canceled = toIntent(won);
      await appendEvents(trx, events(canceled), change.now);
      return canceled;
    });
  }

  capture(
    intent: PaymentIntent,
    captured: Transaction,
    events: (intent: PaymentIntent) => EventDraft[],
  ): Promise<PaymentIntent | null> {
    return this.#writes.run(async (trx) => {
      // The intent first, as cancel does: two writers lock the rows in one order (no deadlock on PostgreSQL).
      const won = await trx
        .updateTable('payment_intents')
        .set({ status: 'succeeded', capture_before: null, updated_at: captured.updatedAt })
        .where('id', '=', intent.id)
        .where('account_id', '=', intent.accountId)
        .where('status', '=', 'requires_capture')
        .where('last_transaction_id', '=', captured.id)
        .returningAll()
        .executeTakeFirst();
      if (!won) return null;
      const settled = await trx
        .updateTable('transactions')
        .set({
          status: captured.status,
          amount: captured.amount,
          amount_authorized: captured.amountAuthorized,
          fee_amount: captured.feeAmount,
          updated_at: captured.updatedAt,
        })
        .where('id', '=', captured.id)
        .where('account_id', '=', captured.accountId)
        .where('status', '=', TX_STATUS.authorized)
        .executeTakeFirst();
      // Thrown, not returned: the intent's change above is undone with the unit.
      if (settled.numUpdatedRows === 0n)
        throw new Error(`attempt ${captured.id} of a requires_capture intent was not authorized`);
      const succeeded = toIntent(won);
      await appendEvents(trx, events(succeeded), captured.updatedAt);
      return succeeded;
    });
  }

  /** Served by the partial index payment_intents_capture_before (migration 0140). */
  async dueForVoidAcrossAccounts(now: number, limit: number, after?: PaymentIntent): Promise<PaymentIntent[]> {
    let select = this.#db
      .selectFrom('payment_intents')
      .selectAll()
      .where('capture_before', 'is not', null)
      .where('capture_before', '<=', now)
      .where('status', '=', 'requires_capture');
    if (after) {
      select = select.where(({ eb, refTuple, tuple }) =>
        eb(refTuple('capture_before', 'id'), '>', tuple(after.captureBefore ?? 0, after.id)),
      );
    }
    const rows = await select.orderBy('capture_before').orderBy('id').limit(limit).execute();
    return rows.map(toIntent);
  }

  async dueForExpiryAcrossAccounts(now: number, limit: number, after?: PaymentIntent): Promise<PaymentIntent[]> {
    let select = this.#db
      .selectFrom('payment_intents')
      .selectAll()
      .where('status', 'in', ['requires_payment', 'failed', 'processing'])
      .where('expires_at', '<=', now);
    if (after) {
      select = select.where(({ eb, refTuple, tuple }) =>
        eb(refTuple('expires_at', 'id'), '>', tuple(after.expiresAt, after.id)),
      );
    }
    const rows = await select.orderBy('expires_at').orderBy('id').limit(limit).execute();
    return rows.map(toIntent);
  }

  /**
   * Served by the partial index transactions_pending (migration 0006): pending rows are
   * few. Open challenges are told apart by the caller: a condition on challenge_token
   * here makes SQLite pick that column's unique index and read every finished row.
   */
  async pendingAttemptsAcrossAccounts(query: {
    processors: readonly string[];
    startedBefore: number;
    after: { createdAt: number; id: string } | null;
    limit: number;
  }): Promise<Transaction[]> {
    const { after } = query;
    return this.#attemptsPage(
      query.processors,
      (select) =>
        select
          // A literal, not a parameter: SQLite matches a partial index only against literals.
          .where('status', '=', sql.lit(TX_STATUS.pending))
          .where('created_at', '<', query.startedBefore),
      'created_at',
      after && { at: after.createdAt, id: after.id },
      query.limit,
    );
  }

  /** A page of a processor's attempts in (`order`, id) order, strictly after `after`. */
  async #attemptsPage(
    processors: readonly string[],
    filter: (select: AttemptsQuery) => AttemptsQuery,
    order: 'created_at' | 'follow_up_at',
    after: { at: number; id: string } | null,
    limit: number,
  ): Promise<Transaction[]> {
    if (processors.length === 0) return [];
    let select = filter(this.#db.selectFrom('transactions').selectAll().where('processor', 'in', processors));
    if (after) {
      select = select.where(({ eb, refTuple, tuple }) => eb(refTuple(order, 'id'), '>', tuple(after.at, after.id)));
    }
    const rows = await select.orderBy(order).orderBy('id').limit(limit).execute();
    return rows.map(toTransaction);
  }

  async flagForReview(tx: Transaction, now: number, events: EventDraft[]): Promise<boolean> {
    return this.#writes.run(async (trx) => {
      const won = await trx
        .updateTable('transactions')
        .set({ review_requested_at: now })
        .where('id', '=', tx.id)
        .where('account_id', '=', tx.accountId)
        .where('status', '=', TX_STATUS.pending)
        .where('review_requested_at', 'is', null)
        .executeTakeFirst();
      if (won.numUpdatedRows === 0n) return false;
      await appendEvents(trx, events, now);
      return true;
    });
  }

  async recordFollowUp(before: Transaction, after: Transaction, events: EventDraft[]): Promise<boolean> {
    const row = transactionRow(after);
    const read = transactionRow(before);
    return this.#writes.run(async (trx) => {
      let update = trx
        .updateTable('transactions')
        .set({
          reversal: row.reversal,
          duplicate_payments: row.duplicate_payments,
          follow_up_at: row.follow_up_at,
          review_requested_at: row.review_requested_at,
          review_reason: row.review_reason,
          processor_payment_ref: row.processor_payment_ref,
          processor_charge_ref: row.processor_charge_ref,
          updated_at: row.updated_at,
        })
        .where('id', '=', before.id)
        .where('account_id', '=', before.accountId);
      // As read, every column a follow-up or a finish writes, not only updated_at: two writes in
      // one millisecond (two duplicates' notices) must not both win and the second drop the first's.
      for (const column of FOLLOW_UP_AS_READ) {
        const value = read[column] as string | number | null;
        update = value === null ? update.where(column, 'is', null) : update.where(column, '=', value);
      }
      const won = await update.executeTakeFirst();
      if (won.numUpdatedRows === 0n) return false;
      await appendEvents(trx, events, after.updatedAt);
      return true;
    });
  }

  /** Served by the partial index transactions_follow_up (migration 0100): follow-ups are few. */
  async dueFollowUpsAcrossAccounts(query: {
    processors: readonly string[];
    now: number;
    after: { followUpAt: number; id: string } | null;
    limit: number;
  }): Promise<Transaction[]> {
    const { after } = query;
    return this.#attemptsPage(
      query.processors,
      (select) => select.where('follow_up_at', 'is not', null).where('follow_up_at', '<=', query.now),
      'follow_up_at',
      after && { at: after.followUpAt, id: after.id },
      query.limit,
    );
  }

  async countAwaitingReviewAcrossAccounts(): Promise<number> {
    const row = await this.#db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .where('status', '=', sql.lit(TX_STATUS.pending))
      .where('review_requested_at', 'is not', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async attemptOfProcessorAcrossAccounts(
    processor: string,
    by: { attemptId: string } | { paymentRef: string },
  ): Promise<Transaction | undefined> {
    const row = await this.#db
      .selectFrom('transactions')
      .selectAll()
      .where('processor', '=', processor)
      .where((eb) =>
        'attemptId' in by ? eb('id', '=', by.attemptId) : eb('processor_payment_ref', '=', by.paymentRef),
      )
      .executeTakeFirst();
    return row && toTransaction(row);
  }
}
