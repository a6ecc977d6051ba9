import type { ErrorCode } from '../domain/errors.ts';

export type ErrorType = 'invalid_request' | 'authentication' | 'server';

/** code -> HTTP status and public error.type: the only place these are decided. */
export const ERROR_STATUS: Record<ErrorCode, { status: number; type: ErrorType }> = {
  parameter_missing: { status: 400, type: 'invalid_request' },
  parameter_invalid: { status: 400, type: 'invalid_request' },
  parameter_unknown: { status: 400, type: 'invalid_request' },
  body_invalid: { status: 400, type: 'invalid_request' },
  body_too_large: { status: 413, type: 'invalid_request' },
  content_type_unsupported: { status: 415, type: 'invalid_request' },
  resource_missing: { status: 404, type: 'invalid_request' },
  route_not_found: { status: 404, type: 'invalid_request' },
  idempotency_key_in_use: { status: 409, type: 'invalid_request' },
  idempotency_key_reused: { status: 422, type: 'invalid_request' },
  idempotency_key_invalid: { status: 400, type: 'invalid_request' },
  rate_limited: { status: 429, type: 'invalid_request' },
  mode_mismatch: { status: 400, type: 'invalid_request' },
  api_key_missing: { status: 401, type: 'authentication' },
  api_key_invalid: { status: 401, type: 'authentication' },
  secret_key_required: { status: 401, type: 'authentication' },
  account_inactive: { status: 403, type: 'authentication' },
  internal_error: { status: 500, type: 'server' },
  card_number_invalid: { status: 400, type: 'invalid_request' },
  card_expiry_invalid: { status: 400, type: 'invalid_request' },
  card_cvc_invalid: { status: 400, type: 'invalid_request' },
  card_name_missing: { status: 400, type: 'invalid_request' },
  card_name_invalid: { status: 400, type: 'invalid_request' },
  card_declined: { status: 402, type: 'invalid_request' },
  insufficient_funds: { status: 402, type: 'invalid_request' },
  expired_card: { status: 402, type: 'invalid_request' },
  incorrect_cvc: { status: 402, type: 'invalid_request' },
  authentication_failed: { status: 402, type: 'invalid_request' },
  card_not_test: { status: 402, type: 'invalid_request' },
  processing_error: { status: 402, type: 'invalid_request' },
};
