/**
 * The one catalogue of error codes the merchant API can answer with.
 * The HTTP status and public `type` of each code live in http/error-statuses.ts.
 */
export const ERROR_CODES = [
  // invalid_request
  'parameter_missing',
  'parameter_invalid',
  'parameter_unknown',
  'body_invalid',
  'body_too_large',
  'content_type_unsupported',
  'resource_missing',
  'route_not_found',
  'idempotency_key_in_use',
  'idempotency_key_reused',
  'idempotency_key_invalid',
  'rate_limited',
  'rate_limit',
  'request_timeout',
  'headers_too_large',
  'mode_mismatch',
  'live_mode_unavailable',
  // the intent's lifecycle: cancel, update, capture (decision 0240)
  'intent_unexpected_state',
  'capture_amount_too_large',
  'acquirer_declined',
  'acquirer_unavailable',
  // authentication
  'api_key_missing',
  'api_key_invalid',
  'secret_key_required',
  'account_inactive',
  // server
  'internal_error',
  'database_unavailable',
  'service_busy',
  // card checks before processing (invalid_request, 400)
  'card_number_invalid',
  'card_expiry_invalid',
  'card_cvc_invalid',
  'card_name_missing',
  'card_name_invalid',
  // declines and processing errors from the processor (invalid_request, 402)
  'card_declined',
  'insufficient_funds',
  'expired_card',
  'incorrect_cvc',
  'authentication_failed',
  'card_not_test',
  'processing_error',
  // the widget's payment flow
  'client_key_invalid',
  'client_secret_invalid',
  'card_encryption_invalid',
  'payment_intent_expired',
  'payment_intent_unexpected_state',
  'payment_intent_canceled',
  'payment_in_progress',
  'too_many_attempts',
  'live_payments_unavailable',
  'challenge_invalid',
  // the transaction lifecycle: refunds and chargebacks (docs/decisions/0011, 0012)
  'refund_amount_too_large',
  'transaction_not_refundable',
  'transaction_already_refunded',
  'transaction_disputed',
  'live_refunds_unavailable',
  'sandbox_only',
  'transaction_not_disputable',
  'transaction_already_disputed',
  // webhooks (docs/webhooks.md)
  'endpoint_disabled',
  'endpoint_limit_reached',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** An error the caller can act on. Anything else that escapes is a 500 with a generic message. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  /** Sent as `Retry-After` (whole seconds) when set. */
  readonly retryAfterSeconds: number | undefined;
  constructor(code: ErrorCode, message: string, param?: string, retryAfterSeconds?: number) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.param = param;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export const invalidParam = (param: string, message: string) => new ApiError('parameter_invalid', message, param);
