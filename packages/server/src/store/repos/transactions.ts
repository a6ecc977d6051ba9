import type { Kysely, Selectable } from 'kysely';
import type { Page } from '../../domain/intents.ts';
import type { TransactionFilter } from '../../domain/transaction-queries.ts';
import type { DuplicatePayment, Transaction, TxStatus } from '../../domain/transactions.ts';
import type { AccountId, IntentId, TransactionId } from '../../ids.ts';
import { readAtEndOfTurn } from '../end-of-turn.ts';
import type { HotPaths } from '../hot-paths.ts';
import { olderThan, toPage } from '../keyset.ts';
import type { Database, TransactionsTable } from '../schema.ts';

export function toTransaction(row: Selectable<TransactionsTable>): Transaction {
  return {
    id: row.id as TransactionId,
    uuid: row.uuid,
    accountId: row.account_id,
    paymentIntentId: row.payment_intent_id as IntentId,
    mode: row.mode,
    status: row.status as TxStatus,
    amount: row.amount,
    currency: row.currency as 'USD',
    feeAmount: row.fee_amount,
    feeBps: row.fee_bps,
    feeFixedMinor: row.fee_fixed_minor,
    refundedAmount: row.refunded_amount,
    amountAuthorized: row.amount_authorized,
    card: {
      bin: row.card_bin,
      last4: row.card_last4,
      length: row.card_length,
      brand: row.card_brand,
      expMonth: row.card_exp_month,
      expYear: row.card_exp_year,
    },
    cardholder: row.cardholder,
    cardCountry: row.card_country,
    cardBank: row.card_bank,
    externalid: row.externalid,
    productId: row.product_id,
    chargeback: row.chargeback === 1,
    declineCode: row.decline_code,
    declineMessage: row.decline_message,
    threeDS: row.three_ds,
    authorizationCode: row.authorization_code,
    processor: row.processor,
    challengeToken: row.challenge_token,
    processorChallengeRef: row.processor_challenge_ref,
    disputeAt: row.dispute_at,
    clientIp: row.client_ip,
    processorPaymentRef: row.processor_payment_ref,
    processorChargeRef: row.processor_charge_ref,
    cardFunding: row.card_funding,
    challengeRedirectUrl: row.challenge_redirect_url,
    reviewRequestedAt: row.review_requested_at,
    reversal: row.reversal,
    reviewReason: row.review_reason as Transaction['reviewReason'],
    duplicatePayments: row.duplicate_payments ? (JSON.parse(row.duplicate_payments) as DuplicatePayment[]) : [],
    followUpAt: row.follow_up_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function transactionRow(tx: Transaction): TransactionsTable {
  return {
    id: tx.id,
    uuid: tx.uuid,
    account_id: tx.accountId,
    payment_intent_id: tx.paymentIntentId,
    mode: tx.mode,
    status: tx.status,
    amount: tx.amount,
    currency: tx.currency,
    fee_amount: tx.feeAmount,
    fee_bps: tx.feeBps,
    fee_fixed_minor: tx.feeFixedMinor,
    refunded_amount: tx.refundedAmount,
    amount_authorized: tx.amountAuthorized,
    card_bin: tx.card.bin,
    card_last4: tx.card.last4,
    card_length: tx.card.length,
    card_brand: tx.card.brand,
    card_exp_month: tx.card.expMonth,
    card_exp_year: tx.card.expYear,
    cardholder: tx.cardholder,
    card_country: tx.cardCountry,
    card_bank: tx.cardBank,
    externalid: tx.externalid,
    product_id: tx.productId,
    chargeback: tx.chargeback ? 1 : 0,
    decline_code: tx.declineCode,
    decline_message: tx.declineMessage,
    three_ds: tx.threeDS,
    authorization_code: tx.authorizationCode,
    processor: tx.processor,
    challenge_token: tx.challengeToken,
    processor_challenge_ref: tx.processorChallengeRef,
    dispute_at: tx.disputeAt,
    client_ip: tx.clientIp,
    processor_payment_ref: tx.processorPaymentRef,
    processor_charge_ref: tx.processorChargeRef,
    card_funding: tx.cardFunding,
    challenge_redirect_url: tx.challengeRedirectUrl,
    review_requested_at: tx.reviewRequestedAt,
    reversal: tx.reversal,
    review_reason: tx.reviewReason,
    duplicate_payments: tx.duplicatePayments.length > 0 ? JSON.stringify(tx.duplicatePayments) : null,
    follow_up_at: tx.followUpAt,
    created_at: tx.createdAt,
    updated_at: tx.updatedAt,
  };
}

export class TransactionsRepository {
  readonly #db: Kysely<Database>;
  readonly #hot: HotPaths | undefined;
  constructor(db: Kysely<Database>, hot?: HotPaths) {
    this.#db = db;
    this.#hot = hot;
  }

  async find(accountId: AccountId, id: string): Promise<Transaction | undefined> {
    if (this.#hot) {
      const found = await this.#hot.findTransaction(accountId, id);
      return found && toTransaction(found);
    }
    const row = await this.#db
      .selectFrom('transactions')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toTransaction(row);
  }

  /** The challenge token is itself the credential (like a client_secret), so this lookup has no account. */
  async findByChallengeTokenAcrossAccounts(token: string): Promise<Transaction | undefined> {
    const row = await this.#db
      .selectFrom('transactions')
      .selectAll()
      .where('challenge_token', '=', token)
      .executeTakeFirst();
    return row && toTransaction(row);
  }

  async forIntent(accountId: AccountId, intentId: string): Promise<Transaction[]> {
    const rows = await this.#db
      .selectFrom('transactions')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('payment_intent_id', '=', intentId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toTransaction);
  }

  /** Newest first, ties by id; keyset paging after `after` (docs/decisions/0005). */
  async list(
    accountId: AccountId,
    filter: TransactionFilter,
    limit: number,
    after?: Transaction,
  ): Promise<Page<Transaction>> {
    let query = this.#db
      .selectFrom('transactions')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.mode !== undefined) query = query.where('mode', '=', filter.mode);
    if (filter.amountMin !== undefined) query = query.where('amount', '>=', filter.amountMin);
    if (filter.amountMax !== undefined) query = query.where('amount', '<=', filter.amountMax);
    if (filter.paymentIntentId !== undefined) query = query.where('payment_intent_id', '=', filter.paymentIntentId);
    if (filter.productId !== undefined) query = query.where('product_id', '=', filter.productId);
    if (filter.externalid !== undefined) query = query.where('externalid', '=', filter.externalid);
    if (filter.reference !== undefined) {
      const reference = filter.reference;
      query = query.where('payment_intent_id', 'in', (eb) =>
        eb
          .selectFrom('payment_intents')
          .select('payment_intents.id')
          .where('payment_intents.account_id', '=', accountId)
          .where('payment_intents.reference', '=', reference),
      );
    }
    if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
    if (filter.createdTo !== undefined) query = query.where('created_at', '<=', filter.createdTo);
    if (after) {
      query = query.where(olderThan(after));
    }
    const rows = await readAtEndOfTurn(() => query.execute());
    return toPage(rows, limit, toTransaction);
  }
}
