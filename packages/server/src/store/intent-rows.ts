import type { Selectable } from 'kysely';
import type { CancellationReason, CaptureMethod, IntentStatus, PaymentIntent } from '../domain/intent-model.ts';
import type { IntentId, TransactionId } from '../ids.ts';
import type { PaymentIntentsTable } from './schema.ts';

/** A payment intent and its row, both ways: shared by the repository and the hot paths (no import cycle). */
export function toIntent(row: Selectable<PaymentIntentsTable>): PaymentIntent {
  return {
    id: row.id as IntentId,
    accountId: row.account_id,
    amount: row.amount,
    currency: row.currency as 'USD',
    status: row.status as IntentStatus,
    mode: row.mode,
    clientSecret: row.client_secret,
    reference: row.reference,
    externalid: row.externalid,
    descriptor: row.descriptor,
    description: row.description,
    theme: row.theme,
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    productId: row.product_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at,
    lastTransactionId: row.last_transaction_id as TransactionId | null,
    failedAttempts: row.failed_attempts,
    captureMethod: row.capture_method as CaptureMethod,
    captureBefore: row.capture_before,
    canceledAt: row.canceled_at,
    cancellationReason: row.cancellation_reason as CancellationReason | null,
  };
}

export function intentRow(intent: PaymentIntent, idempotencyKey: string | null = null): PaymentIntentsTable {
  return {
    id: intent.id,
    account_id: intent.accountId,
    amount: intent.amount,
    currency: intent.currency,
    status: intent.status,
    mode: intent.mode,
    client_secret: intent.clientSecret,
    reference: intent.reference,
    externalid: intent.externalid,
    descriptor: intent.descriptor,
    description: intent.description,
    theme: intent.theme,
    metadata: JSON.stringify(intent.metadata),
    product_id: intent.productId,
    created_at: intent.createdAt,
    updated_at: intent.updatedAt,
    expires_at: intent.expiresAt,
    last_transaction_id: intent.lastTransactionId,
    failed_attempts: intent.failedAttempts,
    idempotency_key: idempotencyKey,
    capture_method: intent.captureMethod,
    capture_before: intent.captureBefore,
    canceled_at: intent.canceledAt,
    cancellation_reason: intent.cancellationReason,
  };
}
