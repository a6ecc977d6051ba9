import { type Static, Type } from 'typebox';
import type { TransactionWithRefunds } from '../../../../domain/transaction-queries.ts';
import {
  REFUND_REASONS,
  refundView,
  TX_STATUS,
  TX_STATUS_TEXT,
  transactionRecord,
} from '../../../../domain/transactions.ts';
import { CurrencyOut, ModeEnum, nullable } from '../schema-parts.ts';

export const RefundOut = Type.Object({
  id: Type.String({ description: 're_…' }),
  object: Type.Literal('refund'),
  amount: Type.Integer({ description: 'Minor units (cents)' }),
  currency: CurrencyOut,
  created: Type.Number({ description: 'Unix seconds, may carry a fraction' }),
  transaction: Type.String(),
  status: Type.Enum(['succeeded', 'pending', 'failed'], {
    description: 'A live refund is pending until the acquirer confirms it; a failed one gave nothing back',
  }),
  processor_refund_id: nullable(Type.String({ description: "The acquirer's refund id (Stripe: re_…)" })),
  payment_intent: nullable(Type.String()),
  reason: nullable(Type.Enum([...REFUND_REASONS])),
  metadata: Type.Unsafe<Record<string, string>>({ type: 'object', additionalProperties: { type: 'string' } }),
});

/**
 * The transaction record: first spec §2.2, every field with its exact JSON type, then the
 * platform's own fields (clients treat those as informational). Validator, type and serializer.
 */
export const TransactionOut = Type.Object({
  id: Type.String(),
  uuid: Type.String(),
  created: Type.Number({ description: 'Unix seconds, may carry a fraction' }),
  status: Type.Integer({
    enum: Object.values(TX_STATUS),
    description: 'docs/transactions.md: 10 Pending … 50 Chargeback',
  }),
  statustext: Type.Enum(Object.values(TX_STATUS_TEXT) as string[]),
  amountpaid: Type.Number({ description: 'Major units' }),
  currencypaid: Type.String(),
  usdpaid: Type.Number({ description: 'Major units of USD' }),
  usdfee: Type.Number({ description: 'Major units of USD' }),
  card: Type.String({ description: 'First six and last four digits, the middle masked' }),
  cardholder: Type.String(),
  cardcountry: Type.String(),
  cardbank: Type.String(),
  paymenttypetext: Type.String(),
  externalid: Type.String(),
  product: Type.String(),
  chargeback: Type.Boolean(),
  object: Type.Literal('transaction'),
  payment_intent: Type.String(),
  mode: ModeEnum,
  amount: Type.Integer({ description: 'Minor units' }),
  currency: CurrencyOut,
  amount_refunded: Type.Integer({ description: 'Minor units' }),
  fee: Type.Object({
    amount: Type.Integer({ description: 'Minor units of USD' }),
    percent_bps: Type.Integer(),
    fixed: Type.Integer({ description: 'Minor units of USD' }),
    currency: Type.Literal('USD'),
  }),
  card_exp_month: Type.Integer(),
  card_exp_year: Type.Integer(),
  decline_code: nullable(Type.String()),
  decline_message: nullable(Type.String()),
  three_d_secure: nullable(Type.String()),
  authorization_code: nullable(Type.String()),
  card_funding: nullable(Type.String({ description: 'credit, debit, prepaid or unknown, as the acquirer says' })),
  processor: Type.String({ description: 'sandbox, or the live connector that took the payment (stripe)' }),
  processor_payment_id: nullable(Type.String({ description: "The acquirer's payment id (Stripe: pi_…)" })),
  processor_charge_id: nullable(Type.String({ description: "The acquirer's charge id (Stripe: ch_…)" })),
  requires_review: Type.Boolean({
    description:
      'An operator should look: the outcome is still unknown after the review delay, or the acquirer named ' +
      'another amount or payment, or made more than one payment for this attempt (review_reason)',
  }),
  review_reason: nullable(
    Type.Enum(['amount_mismatch', 'payment_mismatch', 'duplicate_payments'], {
      description: 'Why it needs review; null for an unknown outcome (or when no review is needed)',
    }),
  ),
  late_approval_reversal: nullable(
    Type.String({
      description:
        'An approval that arrived after the shopper was told it failed, and how it was given back ' +
        '(refunded <id>, refund pending <id>, voided <id>, void pending <id>)',
    }),
  ),
  duplicate_payments: Type.Array(
    Type.Object({
      processor_payment_id: Type.String({ description: "The acquirer's id of another payment made for this attempt" }),
      given_back: nullable(
        Type.String({ description: 'How it was given back; null: not yet (tried again every 30 s)' }),
      ),
    }),
    { description: 'Other payments the acquirer made for this attempt (a payment sent twice), each given back' },
  ),
  updated: Type.Number({ description: 'Unix seconds, may carry a fraction' }),
  refunds: Type.Array(RefundOut),
});
export type TransactionOut = Static<typeof TransactionOut>;

export const toTransactionOut = (found: TransactionWithRefunds): TransactionOut =>
  transactionRecord(found.transaction, found.refunds);

/** A refund as answered when it is made: with the transaction as it stands right after it. */
export const RefundCreatedOut = Type.Object({
  ...RefundOut.properties,
  transaction_record: TransactionOut,
});

export const toRefundCreatedOut = (
  made: TransactionWithRefunds & { refund: Parameters<typeof refundView>[0] },
): Static<typeof RefundCreatedOut> => ({
  ...refundView(made.refund),
  transaction_record: toTransactionOut(made),
});

/** The error body of the transactions surface (spec §4.2, §7.1). */
export const PlainErrorOut = Type.Object({ error: Type.String() });
