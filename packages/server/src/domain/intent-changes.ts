import type { Clock } from '../clock.ts';
import type { Account } from './accounts.ts';
import { invalidParam } from './errors.ts';
import {
  assertPayable,
  type IntentStore,
  METADATA_MAX_BYTES,
  metadataBytes,
  type PaymentIntent,
  retrievePaymentIntent,
} from './intents.ts';
import { statusAt, unexpectedState } from './payments/intent-state.ts';
import type { ProcessorRegistry } from './payments/ports.ts';

/** Types, lengths and ranges are the creation schema's; null clears an optional text field. */
export interface UpdateIntentIn {
  amount?: number;
  description?: string | null;
  descriptor?: string | null;
  reference?: string | null;
  externalid?: string | null;
  /** Merged into the intent's, as Stripe's: a key set to "" is removed. */
  metadata?: Record<string, string>;
  /** Fixed at creation: refused, naming the field. */
  mode?: unknown;
  currency?: unknown;
}

/** An update may run before any payment of the intent started (decision 0242). */
const UPDATABLE = ['requires_payment', 'failed'];
/** Concurrent updates of one intent: each is applied on the other's result, tried this often. */
const TRIES = 3;

/**
 * POST /payment-intents/{id}: changes what the merchant set at creation while the intent waits
 * for a card (or a new one after a decline). A compare-and-set on the intent as read, so a
 * payment starting at the same moment either pays the old intent (the update is refused) or
 * the new one (decision 0242); the browser still never sets the amount (spec §1).
 */
export async function updatePaymentIntent(
  store: IntentStore,
  clock: Clock,
  account: Account,
  id: string,
  input: UpdateIntentIn,
  processors: Pick<ProcessorRegistry, 'forMode'>,
): Promise<PaymentIntent> {
  for (const fixed of ['mode', 'currency'] as const) {
    if (input[fixed] !== undefined)
      throw invalidParam(fixed, `${fixed} is fixed when the intent is created and cannot be changed.`);
  }
  for (let tries = 1; ; tries++) {
    const before = await retrievePaymentIntent(store, account, id);
    const now = clock.now();
    if (!UPDATABLE.includes(statusAt(before, now))) throw unexpectedState(before, 'updated', now);
    const after = changed(before, input, now);
    assertPayable({ ...input, mode: after.mode, descriptor: after.descriptor ?? undefined }, processors);
    const written = await store.update(before, after);
    if (written) return written;
    if (tries >= TRIES) throw unexpectedState(await retrievePaymentIntent(store, account, id), 'updated', now);
  }
}

function changed(before: PaymentIntent, input: UpdateIntentIn, now: number): PaymentIntent {
  const metadata = { ...before.metadata };
  for (const [key, value] of Object.entries(input.metadata ?? {})) {
    if (value === '') delete metadata[key];
    else metadata[key] = value;
  }
  if (metadataBytes(metadata) > METADATA_MAX_BYTES) {
    throw invalidParam('metadata', `metadata must be at most ${METADATA_MAX_BYTES} bytes as UTF-8 JSON.`);
  }
  const pick = <K extends 'description' | 'descriptor' | 'reference' | 'externalid'>(key: K) =>
    input[key] === undefined ? before[key] : (input[key] ?? null);
  return {
    ...before,
    amount: input.amount ?? before.amount,
    description: pick('description'),
    descriptor: pick('descriptor'),
    reference: pick('reference'),
    externalid: pick('externalid'),
    metadata,
    updatedAt: now,
  };
}
