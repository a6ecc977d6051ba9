// Generated from docs/openapi.json by `npm run openapi` (packages/node/scripts/api-types.ts). Do not edit.

export interface PaymentIntent {
  id: string;
  object: "payment_intent";
  client_secret: string;
  amount: number;
  currency: "USD";
  status: "requires_payment" | "processing" | "requires_capture" | "succeeded" | "failed" | "canceled" | "expired";
  mode: "live" | "sandbox";
  /** Unix seconds */
  created: number;
  /** Unix seconds: the client_secret is refused from then on */
  expires_at: number;
  reference: string | null;
  externalid: string | null;
  descriptor: string | null;
  description: string | null;
  theme: string | null;
  metadata: Record<string, string>;
  product: string | null;
  last_transaction: string | null;
  capture_method: "automatic" | "manual";
  capture_before: number | null;
  canceled_at: number | null;
  cancellation_reason: "duplicate" | "fraudulent" | "requested_by_customer" | "abandoned" | "automatic" | null;
}

export interface Transaction {
  id: string;
  uuid: string;
  /** Unix seconds, may carry a fraction */
  created: number;
  /** docs/transactions.md: 10 Pending … 50 Chargeback */
  status: 10 | 11 | 20 | 30 | 31 | 32 | 40 | 41 | 50;
  statustext: "Pending" | "Authorized" | "Settled" | "Declined" | "Failed" | "Voided" | "Refunded" | "Partially refunded" | "Chargeback";
  /** Major units */
  amountpaid: number;
  currencypaid: string;
  /** Major units of USD */
  usdpaid: number;
  /** Major units of USD */
  usdfee: number;
  /** First six and last four digits, the middle masked */
  card: string;
  cardholder: string;
  cardcountry: string;
  cardbank: string;
  paymenttypetext: string;
  externalid: string;
  product: string;
  chargeback: boolean;
  object: "transaction";
  payment_intent: string;
  mode: "live" | "sandbox";
  /** Minor units */
  amount: number;
  currency: "USD";
  /** Minor units */
  amount_refunded: number;
  fee: {
    /** Minor units of USD */
    amount: number;
    percent_bps: number;
    /** Minor units of USD */
    fixed: number;
    currency: "USD";
  };
  card_exp_month: number;
  card_exp_year: number;
  decline_code: string | null;
  decline_message: string | null;
  three_d_secure: string | null;
  authorization_code: string | null;
  card_funding: string | null;
  /** sandbox, or the live connector that took the payment (stripe) */
  processor: string;
  processor_payment_id: string | null;
  processor_charge_id: string | null;
  /** An operator should look: the outcome is still unknown after the review delay, or the acquirer named another amount or payment, or made more than one payment for this attempt (review_reason) */
  requires_review: boolean;
  review_reason: "amount_mismatch" | "payment_mismatch" | "duplicate_payments" | null;
  late_approval_reversal: string | null;
  /** Other payments the acquirer made for this attempt (a payment sent twice), each given back */
  duplicate_payments: Array<{
    /** The acquirer's id of another payment made for this attempt */
    processor_payment_id: string;
    given_back: string | null;
  }>;
  /** Unix seconds, may carry a fraction */
  updated: number;
  refunds: Array<Refund>;
}

export interface Refund {
  /** re_… */
  id: string;
  object: "refund";
  /** Minor units (cents) */
  amount: number;
  currency: "USD";
  /** Unix seconds, may carry a fraction */
  created: number;
  transaction: string;
  /** A live refund is pending until the acquirer confirms it; a failed one gave nothing back */
  status: "succeeded" | "pending" | "failed";
  processor_refund_id: string | null;
  payment_intent: string | null;
  reason: "duplicate" | "fraudulent" | "requested_by_customer" | null;
  metadata: Record<string, string>;
}

export interface RefundCreated {
  /** re_… */
  id: string;
  object: "refund";
  /** Minor units (cents) */
  amount: number;
  currency: "USD";
  /** Unix seconds, may carry a fraction */
  created: number;
  transaction: string;
  /** A live refund is pending until the acquirer confirms it; a failed one gave nothing back */
  status: "succeeded" | "pending" | "failed";
  processor_refund_id: string | null;
  payment_intent: string | null;
  reason: "duplicate" | "fraudulent" | "requested_by_customer" | null;
  metadata: Record<string, string>;
  transaction_record: Transaction;
}

export interface Product {
  id: string;
  object: "product";
  name: string;
  description: string | null;
  amount: number;
  currency: "USD";
  mode: "live" | "sandbox";
  active: boolean;
  success_url: string | null;
  /** The hosted checkout page of this product */
  url: string;
  /** Unix seconds */
  created: number;
  /** Unix seconds */
  updated: number;
}

export interface WebhookEndpoint {
  id: string;
  object: "webhook_endpoint";
  url: string;
  mode: "live" | "sandbox";
  description: string | null;
  enabled_events: Array<"*" | "payment_intent.created" | "payment_intent.processing" | "payment_intent.succeeded" | "payment_intent.payment_failed" | "payment_intent.expired" | "payment_intent.canceled" | "payment_intent.amount_capturable_updated" | "transaction.created" | "transaction.updated" | "refund.created" | "refund.updated" | "dispute.created" | "dispute.closed" | "payment_attempt.requires_review" | "webhook_endpoint.disabled">;
  enabled: boolean;
  disabled_reason: "requested" | "failing" | null;
  failing_since: number | null;
  previous_secret_expires_at: number | null;
  /** Unix seconds */
  created: number;
  /** Unix seconds */
  updated: number;
}

export interface WebhookEndpointWithSecret {
  id: string;
  object: "webhook_endpoint";
  url: string;
  mode: "live" | "sandbox";
  description: string | null;
  enabled_events: Array<"*" | "payment_intent.created" | "payment_intent.processing" | "payment_intent.succeeded" | "payment_intent.payment_failed" | "payment_intent.expired" | "payment_intent.canceled" | "payment_intent.amount_capturable_updated" | "transaction.created" | "transaction.updated" | "refund.created" | "refund.updated" | "dispute.created" | "dispute.closed" | "payment_attempt.requires_review" | "webhook_endpoint.disabled">;
  enabled: boolean;
  disabled_reason: "requested" | "failing" | null;
  failing_since: number | null;
  previous_secret_expires_at: number | null;
  /** Unix seconds */
  created: number;
  /** Unix seconds */
  updated: number;
  /** whsec_…: verifies the webhook-signature header. Shown once: absent from an idempotent replay (Idempotent-Replayed: true). */
  secret?: string;
}

export interface WebhookDelivery {
  id: string;
  object: "webhook_delivery";
  webhook_endpoint: string;
  event: string;
  /** fanout (the event happened) or resend */
  origin: "fanout" | "resend";
  /** pending, delivered or failed (given up after 3 days) */
  status: "pending" | "delivered" | "failed";
  attempts: number;
  next_attempt_at: number | null;
  /** Unix seconds */
  created: number;
}

export interface WebhookAttempt {
  id: string;
  object: "webhook_attempt";
  webhook_endpoint: string;
  webhook_delivery: string;
  event: string;
  event_type: "payment_intent.created" | "payment_intent.processing" | "payment_intent.succeeded" | "payment_intent.payment_failed" | "payment_intent.expired" | "payment_intent.canceled" | "payment_intent.amount_capturable_updated" | "transaction.created" | "transaction.updated" | "refund.created" | "refund.updated" | "dispute.created" | "dispute.closed" | "payment_attempt.requires_review" | "webhook_endpoint.disabled";
  url: string;
  /** Unix seconds, with milliseconds as a fraction */
  created: number;
  succeeded: boolean;
  status_code: number | null;
  latency_ms: number;
  response_body: string | null;
  error: string | null;
  next_attempt_at: number | null;
}

export interface Event {
  id: string;
  object: "event";
  type: "payment_intent.created" | "payment_intent.processing" | "payment_intent.succeeded" | "payment_intent.payment_failed" | "payment_intent.expired" | "payment_intent.canceled" | "payment_intent.amount_capturable_updated" | "transaction.created" | "transaction.updated" | "refund.created" | "refund.updated" | "dispute.created" | "dispute.closed" | "payment_attempt.requires_review" | "webhook_endpoint.disabled";
  /** Unix seconds, with milliseconds as a fraction */
  created: number;
  mode: "live" | "sandbox";
  /** 1, 2, 3 … per object: the order of the events of one object */
  sequence: number;
  data: {
    object: unknown;
  };
}

export interface Error {
  error: {
    type: "invalid_request" | "authentication" | "server";
    code: "parameter_missing" | "parameter_invalid" | "parameter_unknown" | "body_invalid" | "body_too_large" | "content_type_unsupported" | "resource_missing" | "route_not_found" | "idempotency_key_in_use" | "idempotency_key_reused" | "idempotency_key_invalid" | "rate_limited" | "rate_limit" | "request_timeout" | "headers_too_large" | "mode_mismatch" | "live_mode_unavailable" | "intent_unexpected_state" | "capture_amount_too_large" | "acquirer_declined" | "acquirer_unavailable" | "api_key_missing" | "api_key_invalid" | "secret_key_required" | "account_inactive" | "internal_error" | "database_unavailable" | "service_busy" | "card_number_invalid" | "card_expiry_invalid" | "card_cvc_invalid" | "card_name_missing" | "card_name_invalid" | "card_declined" | "insufficient_funds" | "expired_card" | "incorrect_cvc" | "authentication_failed" | "card_not_test" | "processing_error" | "client_key_invalid" | "client_secret_invalid" | "card_encryption_invalid" | "payment_intent_expired" | "payment_intent_unexpected_state" | "payment_intent_canceled" | "payment_in_progress" | "too_many_attempts" | "live_payments_unavailable" | "challenge_invalid" | "refund_amount_too_large" | "transaction_not_refundable" | "transaction_already_refunded" | "transaction_disputed" | "live_refunds_unavailable" | "sandbox_only" | "transaction_not_disputable" | "transaction_already_disputed" | "endpoint_disabled" | "endpoint_limit_reached";
    message: string;
    /** The parameter at fault, e.g. `amount` or `metadata[size]` */
    param?: string;
    /** Also in the Request-Id header: quote it when asking for help */
    request_id: string;
  };
}

export interface PlainError {
  error: string;
}

export type ListTransactionsQuery = {
  limit?: number;
  starting_after?: string;
  status?: 10 | 11 | 20 | 30 | 31 | 32 | 40 | 41 | 50;
  mode?: "live" | "sandbox";
  payment_intent?: string;
  product?: string;
  externalid?: string;
  "created[gt]"?: number;
  "created[gte]"?: number;
  "created[lt]"?: number;
  "created[lte]"?: number;
};

export type CreateRefundBody = {
  amount?: number;
  reason?: "duplicate" | "fraudulent" | "requested_by_customer";
  metadata?: Record<string, string>;
};

export type SimulateChargebackBody = {
};

export type CreatePaymentIntentBody = {
  amount: number;
  currency: string;
  reference?: string;
  metadata?: Record<string, string>;
  externalid?: string;
  descriptor?: string;
  description?: string;
  theme?: "light" | "dark";
  mode?: "live" | "sandbox";
  capture_method?: "automatic" | "manual";
};

export type ListPaymentIntentsQuery = {
  limit?: number;
  starting_after?: string;
  status?: "requires_payment" | "processing" | "requires_capture" | "succeeded" | "failed" | "canceled" | "expired";
  mode?: "live" | "sandbox";
  reference?: string;
  externalid?: string;
  "created[gt]"?: number;
  "created[gte]"?: number;
  "created[lt]"?: number;
  "created[lte]"?: number;
};

export type UpdatePaymentIntentBody = {
  amount?: number;
  description?: string | null;
  descriptor?: string | null;
  reference?: string | null;
  externalid?: string | null;
  metadata?: Record<string, string>;
  /** Refused: fixed at creation. */
  mode?: unknown;
  /** Refused: fixed at creation. */
  currency?: unknown;
};

export type CancelPaymentIntentBody = {
  cancellation_reason?: "duplicate" | "fraudulent" | "requested_by_customer" | "abandoned";
};

export type CapturePaymentIntentBody = {
  /** At most the amount authorized; the rest is released. */
  amount_to_capture?: number;
};

export type CreateProductBody = {
  name: string;
  description?: string;
  amount: number;
  currency: string;
  mode?: "live" | "sandbox";
  success_url?: string;
  active?: boolean;
};

export type ListProductsQuery = {
  limit?: number;
  starting_after?: string;
};

export type UpdateProductBody = {
  name?: string;
  description?: string | null;
  amount?: number;
  active?: boolean;
  success_url?: string | null;
};

export type CreateWebhookEndpointBody = {
  url: string;
  enabled_events: Array<string>;
  description?: string;
  enabled?: boolean;
  mode?: "live" | "sandbox";
};

export type ListWebhookEndpointsQuery = {
  limit?: number;
  starting_after?: string;
};

export type UpdateWebhookEndpointBody = {
  url?: string;
  enabled_events?: Array<string>;
  description?: string | null;
  enabled?: boolean;
  mode?: "live" | "sandbox";
};

export type RollWebhookEndpointSecretBody = {
  grace_period_hours?: number;
};

export type ListWebhookAttemptsQuery = {
  limit?: number;
  starting_after?: string;
  event_id?: string;
};

export type ListEventsQuery = {
  limit?: number;
  starting_after?: string;
  type?: string;
  object_id?: string;
};

export type ListRefundsQuery = {
  limit?: number;
  starting_after?: string;
  transaction?: string;
  payment_intent?: string;
  status?: "pending" | "succeeded" | "failed";
};
