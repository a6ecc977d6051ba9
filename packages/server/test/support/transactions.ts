import { expect } from 'vitest';
import type { Mode, PaymentIntent } from '../../src/domain/intents.ts';
import { NOT_YET_PROCESSED, type Transaction, TX_STATUS, type TxStatus } from '../../src/domain/transactions.ts';
import { newTransactionId, type TransactionId, uuidv7 } from '../../src/ids.ts';
import { feeFor } from '../../src/money.ts';
import { toIntent } from '../../src/store/repos/intents.ts';
import { transactionRow } from '../../src/store/repos/transactions.ts';
import type { TestAccount, TestServer } from './server.ts';

export interface SettledOptions {
  amount?: number;
  mode?: Mode;
  /** 20 Settled by default; 10, 30 or 31 give an attempt that captured nothing. */
  status?: TxStatus;
  externalid?: string;
  product?: string;
  /** When the sandbox chargeback card's dispute is due (ms). */
  disputeAt?: number;
  cardNumber?: string;
  cardholder?: string;
}

const INTENT_STATUS_AFTER: Record<number, PaymentIntent['status']> = {
  10: 'processing',
  20: 'succeeded',
  30: 'failed',
  31: 'failed',
};

/**
 * A paid transaction for tests of the read side and the lifecycle: the intent is created
 * through the API, then the attempt is written through the store as the payment flow
 * would leave it (transaction row, intent succeeded), at the server clock's now.
 * The one place to switch to the real confirm flow (POST /embed/v1/confirm) later.
 */
export async function createSettledTransaction(
  t: TestServer,
  account: TestAccount,
  options: SettledOptions = {},
): Promise<{ id: string; intentId: string; transaction: Transaction }> {
  const mode = options.mode ?? 'sandbox';
  // A live intent needs a live connector to be created (decision 0199); a test server without
  // one makes it sandbox and stores it live, as a server with a connector would have.
  const live = mode === 'live' && t.server.services.processors.forMode('live') === null;
  const created = await t.call('POST', '/api/v1/payment-intents', {
    key: account.secretKey,
    body: {
      amount: options.amount ?? 2000,
      currency: 'USD',
      mode: live ? 'sandbox' : mode,
      ...(options.externalid !== undefined ? { externalid: options.externalid } : {}),
    },
  });
  expect(created.status).toBe(200);
  const { db } = t.server.services.database;
  if (live) await db.updateTable('payment_intents').set({ mode: 'live' }).where('id', '=', created.json.id).execute();
  const intent = toIntent(
    await db.selectFrom('payment_intents').selectAll().where('id', '=', created.json.id).executeTakeFirstOrThrow(),
  );
  const stored = await db
    .selectFrom('accounts')
    .select(['fee_bps', 'fee_fixed_minor'])
    .where('id', '=', account.id)
    .executeTakeFirstOrThrow();
  const transaction = settledAttempt(intent, t.server.services.clock.now(), options, {
    bps: stored.fee_bps,
    fixedMinor: stored.fee_fixed_minor,
  });
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('transactions').values(transactionRow(transaction)).execute();
    await trx
      .updateTable('payment_intents')
      .set({
        status: INTENT_STATUS_AFTER[transaction.status] ?? 'succeeded',
        last_transaction_id: transaction.id,
        product_id: transaction.productId,
      })
      .where('id', '=', intent.id)
      .execute();
  });
  return { id: transaction.id, intentId: intent.id, transaction };
}

function settledAttempt(
  intent: PaymentIntent,
  now: number,
  options: SettledOptions,
  pricing: { bps: number; fixedMinor: number },
): Transaction {
  const number = options.cardNumber ?? '4242424242424242';
  const status = options.status ?? TX_STATUS.settled;
  const captured = status !== TX_STATUS.pending && status !== TX_STATUS.declined && status !== TX_STATUS.failed;
  return {
    id: newTransactionId(now) as TransactionId,
    uuid: uuidv7(now),
    accountId: intent.accountId,
    paymentIntentId: intent.id,
    mode: intent.mode,
    status,
    amount: intent.amount,
    currency: intent.currency,
    feeAmount: feeFor(intent.amount, pricing),
    feeBps: pricing.bps,
    feeFixedMinor: pricing.fixedMinor,
    refundedAmount: 0,
    card: {
      bin: number.slice(0, 6),
      last4: number.slice(-4),
      length: number.length,
      brand: number.startsWith('5') ? 'Mastercard' : number.startsWith('3') ? 'American Express' : 'Visa',
      expMonth: 12,
      expYear: 2034,
    },
    cardholder: options.cardholder ?? 'Ada Lovelace',
    cardCountry: 'US',
    cardBank: 'Obolus Test Bank',
    externalid: intent.externalid,
    productId: options.product ?? null,
    chargeback: false,
    declineCode: status === TX_STATUS.declined ? 'card_declined' : null,
    declineMessage: status === TX_STATUS.declined ? 'The card was declined.' : null,
    threeDS: 'not_required',
    authorizationCode: captured ? 'SBX123' : null,
    processor: intent.mode === 'sandbox' ? 'sandbox' : 'live-test-connector',
    challengeToken: null,
    processorChallengeRef: null,
    disputeAt: options.disputeAt ?? null,
    clientIp: '127.0.0.1',
    ...NOT_YET_PROCESSED,
    createdAt: now,
    updatedAt: now,
  };
}
