import type { Clock } from '../clock.ts';
import { type AccountId, randomBase62, type TransactionId } from '../ids.ts';
import type { Account } from './accounts.ts';
import { type AuditBy, type AuditEvent, auditEvent } from './audit.ts';
import { ApiError, invalidParam } from './errors.ts';
import type { EventDraft } from './events.ts';
import { IDEMPOTENCY_RETENTION_MS, type IdempotentWrite } from './idempotency.ts';
import { METADATA_MAX_BYTES, metadataBytes, type Page } from './intents.ts';
import type { Processor, ProcessorRegistry } from './payments/ports.ts';
import { noSuchTransaction, type TransactionReader, type TransactionWithRefunds } from './transaction-queries.ts';
import {
  REFUNDABLE_STATUSES,
  type Refund,
  type RefundReason,
  type RefundStatus,
  refundEvent,
  type Transaction,
  TX_STATUS,
  TX_STATUS_TEXT,
  transactionEvent,
} from './transactions.ts';

export const newRefundId = () => `re_${randomBase62(24)}`;

export interface RefundStore {
  /**
   * Compare-and-set: adds `refund.amount` to the transaction's refunded amount only while
   * the transaction is refundable and the sum stays within the amount paid, then inserts the
   * refund and the events, all in one database transaction. Null when the condition failed.
   */
  refund(
    refund: Refund,
    events: (after: Transaction, refunds: Refund[]) => EventDraft[],
    /** Stored with the refund, in the same transaction. */
    idempotencyKey?: string,
    /** Its audit event (`refund.created`), in the same transaction too. */
    audit?: AuditEvent,
  ): Promise<TransactionWithRefunds | null>;

  /** The refund of this transaction made under this Idempotency-Key since `since`, if any. */
  findByIdempotencyKey(
    accountId: AccountId,
    transactionId: string,
    key: string,
    since: number,
  ): Promise<Refund | undefined>;

  /**
   * Compare-and-set on a pending (or, to failed, a succeeded) refund: its new status and
   * the acquirer's id, with the events. A refund that failed gives its amount back to the
   * transaction's refundable balance. Null when the refund was not in a state to move.
   */
  settle(
    refund: Refund,
    to: { status: RefundStatus; processorRef: string | null; now: number },
    events: (after: Transaction, refunds: Refund[]) => EventDraft[],
  ): Promise<TransactionWithRefunds | null>;

  /**
   * A refund with its payment's processor and id there, across accounts, for an acquirer's
   * signed notice: by our refund id, or by the acquirer's id of it (`processorRef`) at `processor`.
   */
  findForNoticeAcrossAccounts(
    by: { refundId: string } | { processor: string; processorRef: string },
  ): Promise<{ refund: Refund; processor: string; paymentRef: string | null } | undefined>;

  /** The live refunds of a payment at `processor` the acquirer never answered (pending, no acquirer id), across accounts. */
  unansweredOfAcrossAccounts(processor: string, paymentRef: string): Promise<Refund[]>;

  forTransactions(accountId: AccountId, transactionIds: readonly TransactionId[]): Promise<Refund[]>;

  /**
   * Across accounts, oldest first: live refunds made before `createdBefore` that the acquirer
   * never answered (pending, no acquirer id), after `after` in that order.
   */
  unsentAcrossAccounts(
    createdBefore: number,
    after: Pick<Refund, 'createdAt' | 'id'> | null,
    limit: number,
  ): Promise<Refund[]>;
}

export interface RefundFilter {
  transaction?: string;
  paymentIntent?: string;
  status?: RefundStatus;
}

/** What GET /api/v1/refunds reads (decision 0243); every read is the account's own. */
export interface RefundLookup {
  find(accountId: AccountId, id: string): Promise<Refund | undefined>;
  list(accountId: AccountId, filter: RefundFilter, limit: number, after?: Refund): Promise<Page<Refund>>;
}

const noSuchRefund = (id: string, param: string) => new ApiError('resource_missing', `No such refund: '${id}'`, param);

export async function retrieveRefund(store: RefundLookup, account: Account, id: string): Promise<Refund> {
  const refund = await store.find(account.id, id);
  if (!refund) throw noSuchRefund(id, 'id');
  return refund;
}

export async function listRefunds(
  store: RefundLookup,
  account: Account,
  filter: RefundFilter,
  limit: number,
  startingAfter?: string,
): Promise<Page<Refund>> {
  const after = startingAfter === undefined ? undefined : await store.find(account.id, startingAfter);
  if (startingAfter !== undefined && !after) throw noSuchRefund(startingAfter, 'starting_after');
  return store.list(account.id, filter, limit, after);
}

export interface RefundIn {
  /** Minor units; the whole remainder when absent. */
  amount?: number | undefined;
  reason?: RefundReason | undefined;
  /** Flat, string values, at most 4 KB as JSON (as an intent's). */
  metadata?: Record<string, string> | undefined;
}

export interface RefundOut extends TransactionWithRefunds {
  refund: Refund;
}

/** A race lost to another refund is retried against the new state this many times at most. */
const ATTEMPTS = 3;

export interface RefundDeps {
  transactions: TransactionReader;
  refunds: RefundStore;
  processors: ProcessorRegistry;
}

/**
 * Refunds a settled transaction. A sandbox refund succeeds at once. A live one is first
 * written `pending` with the balance taken (so concurrent refunds can never sum past the
 * amount paid), then sent to the acquirer outside any database transaction with our
 * refund id as its idempotency key, then settled as the acquirer answers.
 */
export async function refundTransaction(
  deps: RefundDeps,
  clock: Clock,
  account: Account,
  transactionId: string,
  input: RefundIn,
  idempotency?: IdempotentWrite,
  /** Who refunds: its `refund.created` audit event commits with the refund or not at all. */
  by?: AuditBy,
): Promise<RefundOut> {
  let tx = await deps.transactions.find(account.id, transactionId);
  // The request that held this key died: it may have refunded before dying.
  const earlier =
    tx && idempotency?.recovered
      ? await deps.refunds.findByIdempotencyKey(
          account.id,
          tx.id,
          idempotency.key,
          clock.now() - IDEMPOTENCY_RETENTION_MS,
        )
      : undefined;
  if (tx && earlier) return recoveredRefund(deps, clock, tx, earlier);
  const metadata = input.metadata ?? {};
  if (metadataBytes(metadata) > METADATA_MAX_BYTES) {
    throw invalidParam('metadata', `metadata must be at most ${METADATA_MAX_BYTES} bytes as UTF-8 JSON.`);
  }
  for (let attempt = 0; attempt < ATTEMPTS && tx; attempt++) {
    // "Everything left" is read again on every attempt: a partial refund may have just landed.
    const amount = input.amount ?? tx.amount - tx.refundedAmount;
    const processor = refundingProcessor(deps.processors, tx);
    assertRefundable(tx, amount);
    const refund: Refund = {
      id: newRefundId(),
      accountId: account.id,
      transactionId: tx.id,
      amount,
      currency: tx.currency,
      createdAt: clock.now(),
      status: processor ? 'pending' : 'succeeded',
      processorRef: null,
      paymentIntentId: tx.paymentIntentId,
      reason: input.reason ?? null,
      metadata,
    };
    const done = await deps.refunds.refund(
      refund,
      (after, refunds) => [
        transactionEvent('transaction.updated', after, refunds),
        refundEvent('refund.created', refund, after.mode),
      ],
      idempotency?.key,
      by &&
        auditEvent(refund.createdAt, {
          accountId: account.id,
          action: 'refund.created',
          actor: by.actor,
          clientIp: by.clientIp ?? null,
          detail: { transaction: tx.id, refund: refund.id, amount },
        }),
    );
    if (done && processor) return sendRefund(deps, clock, processor, done.transaction, refund);
    if (done) return { refund, ...done };
    tx = await deps.transactions.find(account.id, transactionId);
  }
  if (!tx) throw noSuchTransaction();
  throw new ApiError(
    'transaction_not_refundable',
    'The transaction changed while this refund was being made. Fetch it and try again.',
  );
}

/**
 * The refund a request that died had made. A live one it may not have sent yet is sent now,
 * under its own id as the acquirer's idempotency key: sent before, the acquirer answers that.
 */
async function recoveredRefund(deps: RefundDeps, clock: Clock, tx: Transaction, refund: Refund): Promise<RefundOut> {
  const processor =
    refund.status === 'pending' && refund.processorRef === null && refundingProcessor(deps.processors, tx);
  if (processor) return sendRefund(deps, clock, processor, tx, refund);
  return current(deps, tx, refund);
}

/** Says why a refund of `amount` from `tx` cannot be made, or nothing when it can. */
function assertRefundable(tx: Transaction, amount: number): void {
  if (tx.chargeback || tx.status === TX_STATUS.chargeback) {
    throw new ApiError(
      'transaction_disputed',
      'This transaction has a chargeback: the card network returns the money, so it cannot be refunded as well.',
    );
  }
  if (tx.status === TX_STATUS.refunded) {
    throw new ApiError('transaction_already_refunded', 'This transaction has already been refunded in full.');
  }
  if (!REFUNDABLE_STATUSES.includes(tx.status)) {
    throw new ApiError(
      'transaction_not_refundable',
      `Only settled transactions can be refunded; this one is ${TX_STATUS_TEXT[tx.status]}.`,
    );
  }
  if (!Number.isSafeInteger(amount) || amount < 1) {
    throw invalidParam('amount', 'amount must be a positive integer number of cents.');
  }
  const remaining = tx.amount - tx.refundedAmount;
  if (amount > remaining) {
    throw new ApiError(
      'refund_amount_too_large',
      `amount must be at most ${remaining}: the cents of this payment not yet refunded.`,
      'amount',
    );
  }
}

/** The live connector that gives money back for `tx`; null for the sandbox (no money moved). */
function refundingProcessor(processors: ProcessorRegistry, tx: Transaction): Processor | null {
  if (tx.mode === 'sandbox') return null;
  const processor = processors.byName(tx.processor);
  if (!processor?.refund) {
    throw new ApiError(
      'live_refunds_unavailable',
      'Refunds of this live transaction must go through the live connector that took the payment, which is not configured.',
    );
  }
  return processor;
}

async function sendRefund(
  deps: RefundDeps,
  clock: Clock,
  processor: Processor,
  tx: Transaction,
  refund: Refund,
): Promise<RefundOut> {
  const attempt = { attemptId: tx.id, paymentRef: tx.processorPaymentRef };
  const answer = await processor
    .refund?.({ refundId: refund.id, attempt, amount: refund.amount })
    .catch(() => ({ kind: 'unknown' as const, message: 'The acquirer did not answer.' }));
  const to =
    answer?.kind === 'succeeded' || answer?.kind === 'failed'
      ? { status: answer.kind, processorRef: answer.ref }
      : { status: 'pending' as const, processorRef: answer?.kind === 'pending' ? answer.ref : null };
  if (to.status === 'pending' && to.processorRef === null) return current(deps, tx, refund);
  const settled = await settleRefund(deps.refunds, refund, { ...to, now: clock.now() });
  // Not settled here: the acquirer's notice of this refund (sent as it made it) settled it first.
  if (!settled) return current(deps, tx, refund);
  return { refund: settled.refunds.find((r) => r.id === refund.id) ?? refund, ...settled };
}

const UNSENT_PAGE = 50;
/** A pass sends this many unsent refunds at most; the rest wait for the next pass. */
const MAX_UNSENT_PER_PASS = 500;

export interface UnsentRefundsReport {
  /** Now answered by the acquirer: succeeded, failed, or pending with its id there. */
  answered: Refund[];
  /** Still unanswered (or no live connector for them): tried again next pass. */
  unanswered: Refund[];
}

/**
 * Sends again the live refunds the acquirer never answered: the request timed out, the
 * connection dropped, or the process died between writing the refund and hearing back.
 * Pending with no acquirer id and older than `olderThanMs` (every call of ours has ended by
 * then). Sent under the refund's own id as the acquirer's idempotency key, as the first time:
 * a refund the acquirer did make is answered again, never made twice. Several processes may
 * run this at once for the same reason; the answer is recorded by compare-and-set.
 */
export async function sendUnsentRefunds(
  deps: RefundDeps,
  clock: Clock,
  olderThanMs: number,
  signal?: AbortSignal,
): Promise<UnsentRefundsReport> {
  const report: UnsentRefundsReport = { answered: [], unanswered: [] };
  const createdBefore = clock.now() - olderThanMs;
  let after: Refund | null = null;
  for (let read = 0; read < MAX_UNSENT_PER_PASS; read += UNSENT_PAGE) {
    const page = await deps.refunds.unsentAcrossAccounts(createdBefore, after, UNSENT_PAGE);
    for (const refund of page) {
      if (signal?.aborted) return report;
      const tx = await deps.transactions.find(refund.accountId, refund.transactionId);
      const processor = tx && deps.processors.byName(tx.processor);
      const sent = tx && processor?.refund ? (await sendRefund(deps, clock, processor, tx, refund)).refund : refund;
      const answered = sent.status !== 'pending' || sent.processorRef !== null;
      (answered ? report.answered : report.unanswered).push(sent);
    }
    after = page.at(-1) ?? null;
    if (!after || page.length < UNSENT_PAGE) break;
  }
  return report;
}

/** The transaction and `refund` as stored now. */
async function current(deps: RefundDeps, tx: Transaction, refund: Refund): Promise<RefundOut> {
  const transaction = (await deps.transactions.find(tx.accountId, tx.id)) ?? tx;
  const refunds = await deps.refunds.forTransactions(tx.accountId, [tx.id]);
  return { transaction, refunds, refund: refunds.find((r) => r.id === refund.id) ?? refund };
}

export function settleRefund(
  store: RefundStore,
  refund: Refund,
  to: { status: RefundStatus; processorRef: string | null; now: number },
) {
  return store.settle(refund, to, (after, refunds) => {
    const settled = refunds.find((r) => r.id === refund.id);
    // refund.updated when its status moved (pending -> succeeded / failed), not when we only learnt the acquirer's id.
    const moved = settled && settled.status !== refund.status;
    return [
      transactionEvent('transaction.updated', after, refunds),
      ...(moved ? [refundEvent('refund.updated', settled, after.mode)] : []),
    ];
  });
}
