import type { Clock } from '../clock.ts';
import { DAY } from '../clock.ts';
import { type AccountId, newClientSecret, newIntentId } from '../ids.ts';
import type { Account } from './accounts.ts';
import { ApiError, invalidParam } from './errors.ts';
import type { EventDraft, EventType } from './events.ts';
import { IDEMPOTENCY_RETENTION_MS, type IdempotentWrite } from './idempotency.ts';
import type { CaptureMethod, IntentStatus, Mode, PaymentIntent, Theme } from './intent-model.ts';
import { paymentIntentView } from './intent-view.ts';
import type { ProcessorRegistry } from './payments/ports.ts';

export {
  CANCELLATION_REASONS,
  type CancellationReason,
  type CaptureMethod,
  INTENT_STATUSES,
  type IntentStatus,
  type Mode,
  type PaymentIntent,
  type Theme,
} from './intent-model.ts';

/** A client_secret is valid for 7 days from creation (spec §2.1). */
export const INTENT_LIFETIME_MS = 7 * DAY;
/** Metadata is measured as the UTF-8 bytes of its compact JSON text, as stored. */
export const METADATA_MAX_BYTES = 4096;

/** Shapes, types, lengths and ranges are checked by the route schema before this point. */
export interface CreateIntentIn {
  amount: number;
  currency: string;
  reference?: string;
  metadata?: Record<string, string>;
  externalid?: string;
  descriptor?: string;
  description?: string;
  theme?: Theme;
  mode?: Mode;
  /** automatic (the default) or manual: an approval then waits for a capture (decision 0241). */
  capture_method?: CaptureMethod;
  /** Set only by the hosted checkout page (never by the merchant API's schema). */
  productId?: string;
  /** How long the intent can be paid; the API's 7 days unless the hosted checkout page says less. */
  lifetimeMs?: number;
}

/** GET /payment-intents filters (decision 0244); created bounds in inclusive milliseconds. */
export interface IntentFilter {
  status?: IntentStatus;
  mode?: Mode;
  reference?: string;
  externalid?: string;
  createdFrom?: number;
  createdTo?: number;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

export interface IntentStore {
  /** Inserts the intent and writes its events in the same database transaction. */
  insert(intent: PaymentIntent, events: EventDraft[], idempotencyKey?: string): Promise<void>;
  /** The intent created under this Idempotency-Key since `since`, if any. */
  findByIdempotencyKey(accountId: AccountId, key: string, since: number): Promise<PaymentIntent | undefined>;
  find(accountId: AccountId, id: string): Promise<PaymentIntent | undefined>;
  /**
   * Compare-and-set: writes `after`'s merchant fields (amount, texts, metadata) while the intent
   * is as `before` was read (its status, last attempt and updatedAt). Undefined when it changed.
   */
  update(before: PaymentIntent, after: PaymentIntent): Promise<PaymentIntent | undefined>;
  /** Newest first; `after` is an intent of the same account the page starts after. */
  list(accountId: AccountId, limit: number, after?: PaymentIntent, filter?: IntentFilter): Promise<Page<PaymentIntent>>;
}

export function metadataBytes(metadata: Record<string, string>): number {
  return Buffer.byteLength(JSON.stringify(metadata), 'utf8');
}

/** `usd` is accepted and stored as `USD`, the way Stripe integrators write it (docs/decisions/0003). */
function normaliseCurrency(currency: string): 'USD' {
  if (currency.toUpperCase() !== 'USD')
    throw invalidParam('currency', 'currency must be USD: the only currency in v1.');
  return 'USD';
}

export async function createPaymentIntent(
  store: IntentStore,
  clock: Clock,
  account: Account,
  input: CreateIntentIn,
  processors: Pick<ProcessorRegistry, 'forMode'>,
  idempotency?: IdempotentWrite,
): Promise<PaymentIntent> {
  const currency = normaliseCurrency(input.currency);
  const metadata = input.metadata ?? {};
  if (metadataBytes(metadata) > METADATA_MAX_BYTES) {
    throw invalidParam('metadata', `metadata must be at most ${METADATA_MAX_BYTES} bytes as UTF-8 JSON.`);
  }
  assertPayable(input, processors);
  const now = clock.now();
  const earlier = idempotency?.recovered
    ? await store.findByIdempotencyKey(account.id, idempotency.key, now - IDEMPOTENCY_RETENTION_MS)
    : undefined;
  if (earlier) return earlier;
  const id = newIntentId(now);
  const intent: PaymentIntent = {
    id,
    accountId: account.id,
    amount: input.amount,
    currency,
    status: 'requires_payment',
    mode: input.mode ?? 'live',
    clientSecret: newClientSecret(id),
    reference: input.reference ?? null,
    externalid: input.externalid ?? null,
    descriptor: input.descriptor ?? null,
    description: input.description ?? null,
    theme: input.theme ?? null,
    metadata,
    productId: input.productId ?? null,
    createdAt: now,
    updatedAt: now,
    expiresAt: now + Math.min(input.lifetimeMs ?? INTENT_LIFETIME_MS, INTENT_LIFETIME_MS),
    lastTransactionId: null,
    failedAttempts: 0,
    captureMethod: input.capture_method ?? 'automatic',
    captureBefore: null,
    canceledAt: null,
    cancellationReason: null,
  };
  await store.insert(intent, [intentEvent('payment_intent.created', intent)], idempotency?.key);
  return intent;
}

/**
 * A live intent needs a live connector to pay it (decision 0199): refused at creation, as Stripe
 * refuses live charges on an account not activated, rather than after the shopper typed a card.
 * Its descriptor must be one the connector can print on a statement (decision 0198).
 */
export function assertPayable(
  input: Pick<CreateIntentIn, 'mode' | 'descriptor'>,
  processors: Pick<ProcessorRegistry, 'forMode'>,
): void {
  if ((input.mode ?? 'live') !== 'live') return;
  const live = processors.forMode('live');
  if (!live) {
    throw new ApiError(
      'live_mode_unavailable',
      'Live payments are not available: this server has no live connector (OBOLUS_LIVE_CONNECTOR is not set). ' +
        'Create the intent with "mode": "sandbox" to test.',
      'mode',
    );
  }
  const descriptor = input.descriptor && live.statementDescriptor?.(input.descriptor);
  if (descriptor && !descriptor.ok) throw invalidParam('descriptor', descriptor.message);
}

export async function retrievePaymentIntent(store: IntentStore, account: Account, id: string): Promise<PaymentIntent> {
  const intent = await store.find(account.id, id);
  if (!intent) throw new ApiError('resource_missing', `No such payment intent: '${id}'`, 'id');
  return intent;
}

export async function listPaymentIntents(
  store: IntentStore,
  account: Account,
  limit: number,
  startingAfter?: string,
  filter: IntentFilter = {},
): Promise<Page<PaymentIntent>> {
  let after: PaymentIntent | undefined;
  if (startingAfter !== undefined) {
    after = await store.find(account.id, startingAfter);
    if (!after) throw new ApiError('resource_missing', `No such payment intent: '${startingAfter}'`, 'starting_after');
  }
  return store.list(account.id, limit, after, filter);
}

export function intentEvent(type: EventType, intent: PaymentIntent): EventDraft {
  return {
    type,
    accountId: intent.accountId,
    mode: intent.mode,
    objectType: 'payment_intent',
    objectId: intent.id,
    object: paymentIntentView(intent),
  };
}
