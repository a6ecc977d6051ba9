import type { Generated } from 'kysely';
import type { AccountId } from '../ids.ts';
/**
 * Row shapes as stored. Timestamps are integer milliseconds since the epoch, money is
 * integer minor units, JSON is text, and booleans are 0/1 so both engines agree.
 */
export interface AccountsTable {
  id: AccountId;
  name: string;
  email: string;
  status: 'active' | 'inactive';
  fee_bps: number;
  fee_fixed_minor: number;
  allowed_origins: string;
  client_key: string;
  created_at: number;
}

export interface SecretKeysTable {
  digest: string;
  account_id: AccountId;
  last4: string;
  created_at: number;
  /** null while the key is current; set when a roll gives it a grace period. */
  expires_at: number | null;
}

export interface PaymentIntentsTable {
  id: string;
  account_id: AccountId;
  amount: number;
  currency: string;
  status: string;
  mode: 'live' | 'sandbox';
  client_secret: string;
  reference: string | null;
  externalid: string | null;
  descriptor: string | null;
  description: string | null;
  theme: 'light' | 'dark' | null;
  metadata: string;
  product_id: string | null;
  created_at: number;
  updated_at: number;
  expires_at: number;
  last_transaction_id: string | null;
  failed_attempts: number;
  /** The Idempotency-Key it was created under (migration 0080). */
  idempotency_key: string | null;
  /** automatic or manual (migration 0140). */
  capture_method: string;
  /** manual: when an authorization not captured is voided. */
  capture_before: number | null;
  canceled_at: number | null;
  cancellation_reason: string | null;
}

export interface TransactionsTable {
  id: string;
  uuid: string;
  account_id: AccountId;
  payment_intent_id: string;
  mode: 'live' | 'sandbox';
  status: number;
  amount: number;
  currency: string;
  fee_amount: number;
  fee_bps: number;
  fee_fixed_minor: number;
  refunded_amount: number;
  /** A partial capture: the amount authorized (`amount` is what was captured); null otherwise (migration 0141). */
  amount_authorized: number | null;
  card_bin: string;
  card_last4: string;
  card_length: number;
  card_brand: string;
  card_exp_month: number;
  card_exp_year: number;
  cardholder: string;
  card_country: string | null;
  card_bank: string | null;
  externalid: string | null;
  product_id: string | null;
  chargeback: number;
  decline_code: string | null;
  decline_message: string | null;
  three_ds: string | null;
  authorization_code: string | null;
  processor: string;
  challenge_token: string | null;
  processor_challenge_ref: string | null;
  dispute_at: number | null;
  client_ip: string | null;
  processor_payment_ref: string | null;
  processor_charge_ref: string | null;
  card_funding: string | null;
  challenge_redirect_url: string | null;
  review_requested_at: number | null;
  reversal: string | null;
  review_reason: string | null;
  duplicate_payments: string | null;
  follow_up_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface EventsTable {
  id: string;
  account_id: AccountId;
  type: string;
  mode: 'live' | 'sandbox';
  object_type: string;
  object_id: string;
  object_seq: number;
  /** JSON text of data.object as it was when the event happened. */
  data: string;
  created_at: number;
  /** Webhooks: set when the event's deliveries were made (null until then, migration 0004). */
  fanned_out_at: number | null;
  /** Webhooks: a dispatcher's lease on the fan-out of this event. */
  fanout_locked_until: number | null;
}

export interface EncryptionKeysTable {
  kid: string;
  public_jwk: string;
  /** Sealed under the master key of `key_version` (crypto/master-key.ts). */
  private_jwk: string;
  created_at: number;
  decrypts_until: number | null;
  /** mk_…: the master key that sealed private_jwk; null only before the first start of 0020. */
  key_version: string | null;
}

export interface IdempotencyKeysTable {
  account_id: AccountId;
  key: string;
  request_hash: string;
  /** 'in_flight' until the first response is stored, then 'done'. */
  state: 'in_flight' | 'done';
  status_code: number | null;
  response_body: string | null;
  created_at: number;
  locked_at: number;
}

/** A card ciphertext (JWE `jti`) the confirm endpoint accepted: a second use is refused. */
export interface CardCiphertextUsesTable {
  jti: string;
  account_id: AccountId;
  payment_intent_id: string;
  used_at: number;
  /** After this the ciphertext is too old to be accepted anyway, so the row may go. */
  expires_at: number;
}

/** How many intents the hosted checkout created for one client address in one window. */
export interface CheckoutStartWindowsTable {
  address: string;
  window_start: number;
  count: number;
}

export interface RefundsTable {
  /** re_… */
  id: string;
  account_id: AccountId;
  transaction_id: string;
  amount: number;
  currency: string;
  created_at: number;
  processor_ref: string | null;
  status: Generated<string>;
  /** The Idempotency-Key it was made under (migration 0080). */
  idempotency_key: Generated<string | null>;
  /** Migration 0142; null only for refunds made before it of a transaction since gone. */
  payment_intent_id: string | null;
  reason: string | null;
  metadata: Generated<string>;
}

export interface ProductsTable {
  /** prod_… */
  id: string;
  account_id: AccountId;
  mode: 'live' | 'sandbox';
  name: string;
  description: string | null;
  amount: number;
  currency: string;
  /** 0/1: an inactive product's hosted page is a 404. */
  active: number;
  success_url: string | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookEndpointsTable {
  /** we_… */
  id: string;
  account_id: AccountId;
  url: string;
  mode: 'live' | 'sandbox';
  description: string | null;
  /** JSON array of event types, or ["*"]. */
  enabled_events: string;
  /** 0/1 */
  enabled: number;
  disabled_reason: 'requested' | 'failing' | null;
  /** whsec_…, sealed under the master key of `key_version`: signing needs the secret itself (decisions 0023, 0070). */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  failing_since: number | null;
  created_at: number;
  updated_at: number;
  /** mk_…: the master key that sealed secret and previous_secret; null only before the first start of 0020. */
  key_version: string | null;
}

export interface WebhookDeliveriesTable {
  /** whd_…: one event for one endpoint. */
  id: string;
  account_id: AccountId;
  endpoint_id: string;
  event_id: string;
  origin: 'fanout' | 'resend';
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: number | null;
  /** The lease of the dispatcher attempting it now (with lock_token). */
  locked_until: number | null;
  lock_token: string | null;
  first_attempted_at: number | null;
  last_attempted_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookAttemptsTable {
  /** wha_…: one HTTP request of a delivery. */
  id: string;
  account_id: AccountId;
  endpoint_id: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  url: string;
  attempted_at: number;
  status_code: number | null;
  latency_ms: number;
  /** The first 1 KB of the response body. */
  response_body: string | null;
  error: string | null;
  /** 0/1 */
  succeeded: number;
  /** The retry this attempt's failure scheduled; null once delivered or given up. */
  next_attempt_at: number | null;
}

export interface DashboardPasswordsTable {
  account_id: AccountId;
  hash: string;
  updated_at: number;
}

export interface DashboardSessionsTable {
  digest: string;
  account_id: AccountId;
  csrf_token: string;
  mode: 'live' | 'sandbox';
  created_at: number;
  last_seen_at: number;
  /** When the password was last given (sign-in or confirm); null: created_at (migration 0110). */
  password_at: number | null;
}

/** The append-only audit trail (migration 0110, decision 0205). */
export interface AuditEventsTable {
  id: string;
  account_id: AccountId | null;
  action: string;
  actor: string;
  client_network: string | null;
  outcome: string;
  /** JSON of non-secret details (a key's last 4, an endpoint id, an origin). */
  detail: string | null;
  created_at: number;
}

/** One-time tokens of the dashboard's create forms (migration 0050). */
export interface DashboardFormUsesTable {
  account_id: AccountId;
  token: string;
  session_digest: string;
  /** Where the first post sent the browser; null while it is being made. */
  result: string | null;
  created_at: number;
}

export interface SignInFailuresTable {
  id: string;
  email: string;
  client_ip: string;
  failed_at: number;
}

/**
 * Totals of an account's transactions per UTC day of their creation (migration 0160, decision
 * 0261), kept by triggers on `transactions`; a day may have several rows (`slot`), to be summed.
 */
export interface DailyTotalsTable {
  account_id: AccountId;
  mode: 'live' | 'sandbox';
  /** created_at / 86 400 000 of the transactions counted. */
  day: number;
  currency: string;
  slot: number;
  /** Captured: Settled, Refunded, Partially refunded, Chargeback. */
  settled_count: number;
  settled_amount: number;
  /** Finished without a capture (declined, failed, voided, authorized and not captured yet). */
  unpaid_count: number;
  refunded_amount: number;
  chargeback_count: number;
  chargeback_amount: number;
}

export interface RateCountersTable {
  /** What is counted, e.g. payment_failures. */
  scope: string;
  /** Whom it is counted for, e.g. a client network. */
  subject: string;
  window_start: number;
  count: number;
  /** window_start + the window's length: prunable from then on. */
  expires_at: number;
}

export interface Database {
  accounts: AccountsTable;
  secret_keys: SecretKeysTable;
  payment_intents: PaymentIntentsTable;
  idempotency_keys: IdempotencyKeysTable;
  transactions: TransactionsTable;
  events: EventsTable;
  encryption_keys: EncryptionKeysTable;
  card_ciphertext_uses: CardCiphertextUsesTable;
  checkout_start_windows: CheckoutStartWindowsTable;
  refunds: RefundsTable;
  products: ProductsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  dashboard_passwords: DashboardPasswordsTable;
  dashboard_sessions: DashboardSessionsTable;
  audit_events: AuditEventsTable;
  sign_in_failures: SignInFailuresTable;
  dashboard_form_uses: DashboardFormUsesTable;
  rate_counters: RateCountersTable;
  daily_totals: DailyTotalsTable;
  processor_events: ProcessorEventsTable;
}

/** Acquirer webhook events already applied (migration 0040). */
export interface ProcessorEventsTable {
  processor: string;
  event_id: string;
  received_at: number;
}
