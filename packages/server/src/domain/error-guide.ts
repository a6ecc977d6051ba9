import type { ErrorCode } from './errors.ts';

/**
 * What each code of the catalogue means and what the integrator should do about it: the
 * text of docs/errors.md (`npm run errors-doc`). A new code fails to compile until it is here.
 */
export const ERROR_GUIDE: Record<ErrorCode, { meaning: string; action: string }> = {
  parameter_missing: { meaning: 'A required field was not sent; `param` names it.', action: 'Send the field.' },
  parameter_invalid: {
    meaning: 'A field has the wrong type, length, range or value; `param` names it and the message gives the rule.',
    action: 'Fix the value; the rules are in the API reference (`/docs`).',
  },
  parameter_unknown: {
    meaning: 'A field that this endpoint does not take was sent (often a typo); `param` names it.',
    action: 'Remove or rename the field.',
  },
  body_invalid: {
    meaning: 'The body is not a JSON object (empty, malformed, or another JSON value).',
    action: 'Send one JSON object with `Content-Type: application/json`.',
  },
  body_too_large: { meaning: 'The body is larger than 64 KB.', action: 'Send less (metadata is limited to 4 KB).' },
  content_type_unsupported: {
    meaning: 'The body was not sent as `application/json`.',
    action: 'Set `Content-Type: application/json`.',
  },
  resource_missing: {
    meaning: 'No such object on this account. An object of another account answers the same.',
    action: 'Check the id and that you use the secret key of the account that owns it.',
  },
  route_not_found: {
    meaning: 'No endpoint has this method and path (or an id in the path is longer than 2048 characters).',
    action: 'Check the method and the path against the API reference.',
  },
  idempotency_key_in_use: {
    meaning: 'A request with this `Idempotency-Key` is still being processed.',
    action: 'Retry after a short wait with the same key: you will get its result (the Node SDK does this).',
  },
  idempotency_key_reused: {
    meaning: 'This `Idempotency-Key` was used in the last 24 hours for a different request.',
    action: 'Use a new key for a new request; reuse a key only to retry the very same request.',
  },
  idempotency_key_invalid: {
    meaning: 'The `Idempotency-Key` header is empty, repeated, or longer than 255 characters.',
    action: 'Send one key of 1 to 255 characters, e.g. a UUID or your order id.',
  },
  rate_limited: {
    meaning: 'Too many failed payments came from this network in a short time (card-testing protection).',
    action: 'Wait for the `Retry-After` seconds before trying again.',
  },
  rate_limit: {
    meaning:
      "Too many API requests in one second: with this account's secret keys (100 live, 25 sandbox by default), or from your network.",
    action:
      'Wait for the `Retry-After` seconds, then retry (a POST with the same `Idempotency-Key`: nothing was done); spread bursts out.',
  },
  request_timeout: {
    meaning:
      'The headers or the body arrived too slowly (10 s for the headers, 30 s for the whole request by default); the connection was closed and nothing was done.',
    action: 'Send the request again, in one go (a POST with the same `Idempotency-Key`).',
  },
  headers_too_large: {
    meaning: 'The request headers are larger than the server accepts (16 KB in all by default).',
    action: 'Send fewer or shorter headers.',
  },
  mode_mismatch: {
    meaning: 'The widget was mounted in one mode (`live`/`sandbox`) for an intent of the other; nothing was charged.',
    action: 'Mount the widget with the mode the intent was created with.',
  },
  live_mode_unavailable: {
    meaning:
      'A live intent (`mode: "live"`, the default) was asked of a server with no live connector (`OBOLUS_LIVE_CONNECTOR` unset): nothing was created.',
    action: 'Send `"mode": "sandbox"` to test, or ask the operator to configure a live connector (docs/live.md).',
  },
  api_key_missing: {
    meaning: 'No `Authorization` header was sent.',
    action: 'Send `Authorization: Bearer sk_…` with your secret key.',
  },
  api_key_invalid: {
    meaning: 'The key is malformed, unknown, rolled past its grace period, or not sent as `Bearer`.',
    action: 'Use the current secret key from the dashboard (Developer section).',
  },
  secret_key_required: {
    meaning: 'A client key (`pk_…`) was used where the secret key is needed.',
    action: 'Call the merchant API from your server with the secret key (`sk_…`); client keys are for the widget.',
  },
  account_inactive: {
    meaning: 'The account is deactivated.',
    action: 'Ask the operator of your Obolus installation to activate it.',
  },
  internal_error: {
    meaning: 'Something failed on the service side; no detail is shown, the cause is logged under the request id.',
    action: 'Retry later with the same Idempotency-Key; if it persists, report the `request_id`.',
  },
  database_unavailable: {
    meaning:
      'The service could not use its database for a moment (a restart, a failover, a full disk). The request may or may not have taken effect.',
    action:
      'Retry after `Retry-After` seconds with the same Idempotency-Key (safe either way); the service recovers by itself.',
  },
  service_busy: {
    meaning:
      "The widget's confirm found every card-decryption thread busy and their queue full (a burst of payments): nothing was read or charged.",
    action: 'The widget shows it; the shopper presses Pay again after `Retry-After` seconds.',
  },
  card_number_invalid: {
    meaning: 'The card number fails its checks (length, Luhn, or an unsupported brand).',
    action: 'Shopper: check the number. The widget shows this itself.',
  },
  card_expiry_invalid: { meaning: 'The expiry date is malformed or in the past.', action: 'Shopper: check the date.' },
  card_cvc_invalid: {
    meaning: 'The security code has the wrong length for the card brand.',
    action: 'Shopper: check the CVC.',
  },
  card_name_missing: { meaning: 'The name on the card was left empty.', action: 'Shopper: enter the name.' },
  card_name_invalid: {
    meaning: 'The name on the card is too long or holds characters that cannot be on a card.',
    action: 'Shopper: check the name.',
  },
  card_declined: {
    meaning: 'The issuer declined the payment.',
    action: 'The shopper may retry with another card; the intent stays payable (`failed`).',
  },
  insufficient_funds: {
    meaning: 'The card has insufficient funds.',
    action: 'The shopper may retry with another card.',
  },
  expired_card: {
    meaning: 'The issuer says the card has expired.',
    action: 'The shopper may retry with another card.',
  },
  incorrect_cvc: {
    meaning: 'The issuer refused the security code.',
    action: 'The shopper may check the CVC and retry.',
  },
  authentication_failed: {
    meaning: '3-D Secure authentication failed or was abandoned.',
    action: 'The shopper may retry and complete the bank’s check, or use another card.',
  },
  card_not_test: {
    meaning: 'A real card number was used on a sandbox intent.',
    action: 'Use a test card (docs/test-cards.md), or create a live intent for real payments.',
  },
  processing_error: {
    meaning: 'The payment could not be processed (a processor error, not a decline).',
    action: 'The shopper may retry; nothing was charged.',
  },
  client_key_invalid: {
    meaning: 'The widget was loaded with an unknown or deactivated client key (`pk`).',
    action: 'Mount the widget with your account’s current client key.',
  },
  client_secret_invalid: {
    meaning: 'The client_secret is unknown or belongs to another account’s client key.',
    action: 'Pass the `client_secret` of an intent created with the same account.',
  },
  card_encryption_invalid: {
    meaning: 'The encrypted card could not be read (tampered, or encrypted to a key that was retired).',
    action: 'Reload the widget and retry; do not build your own card encryption.',
  },
  payment_intent_expired: {
    meaning: 'The intent passed its 7-day window and can no longer be paid.',
    action: 'Create a new intent.',
  },
  payment_intent_unexpected_state: {
    meaning: 'The intent cannot be paid in its current state, e.g. it has already succeeded.',
    action: 'Retrieve the intent to see its status; create a new one for a new payment.',
  },
  payment_intent_canceled: {
    meaning: 'The merchant canceled this intent: its client_secret pays nothing.',
    action: 'Return to the shop; it creates a new intent for a new payment.',
  },
  intent_unexpected_state: {
    meaning:
      'The intent cannot be canceled, updated or captured in its current status (e.g. a cancel of a succeeded intent, an update after a payment started, a capture of an intent not in requires_capture); nothing was changed.',
    action: 'Retrieve the intent to see its status; the allowed transitions are in docs/lifecycle.md.',
  },
  capture_amount_too_large: {
    meaning: '`amount_to_capture` is more than the authorized amount.',
    action: 'Capture at most the amount authorized (the intent’s `amount`); nothing was captured.',
  },
  acquirer_declined: {
    meaning:
      'The live acquirer refused the capture or the void (e.g. the authorization had already expired or been released there); nothing changed here.',
    action: 'Retrieve the intent and its transaction; look the payment up in the acquirer’s dashboard.',
  },
  acquirer_unavailable: {
    meaning: 'The live acquirer did not answer the capture or the void in time; nothing changed here.',
    action: 'Send the same request again: it reaches the acquirer with the same idempotency key, so it happens once.',
  },
  payment_in_progress: {
    meaning: 'Another payment attempt on this intent is still running.',
    action: 'Wait for its result (the widget reports it) before trying again.',
  },
  too_many_attempts: {
    meaning: 'This intent had too many failed attempts and is locked against card testing.',
    action: 'Create a new intent if the shopper is genuine.',
  },
  live_payments_unavailable: {
    meaning: 'No live connector is configured on this installation: live payments are refused, never simulated.',
    action: 'Use sandbox mode, or ask the operator to configure a live connector (docs/live.md).',
  },
  challenge_invalid: {
    meaning: 'The 3-D Secure challenge is unknown or has ended.',
    action: 'Start the payment again from the widget.',
  },
  refund_amount_too_large: {
    meaning: 'The refund is larger than what remains to refund on the transaction.',
    action: 'Refund at most `amount - amount_refunded` (minor units).',
  },
  transaction_not_refundable: {
    meaning:
      'The transaction captured no money (pending, declined or failed), or it changed while the refund was being made.',
    action: 'Retrieve the transaction: refund only settled or partially refunded ones.',
  },
  transaction_already_refunded: {
    meaning: 'The transaction is already fully refunded.',
    action: 'Nothing to do; retrieve it to see its refunds.',
  },
  transaction_disputed: {
    meaning: 'The transaction has a chargeback; the money is already being returned through the card network.',
    action: 'Do not refund; handle the dispute.',
  },
  live_refunds_unavailable: {
    meaning:
      'Live transactions are refunded through the acquirer that took them; the live connector offers no refunds.',
    action: 'Refund in your acquirer’s dashboard, or ask the operator.',
  },
  sandbox_only: { meaning: 'This call works on sandbox objects only.', action: 'Use it with a sandbox transaction.' },
  transaction_not_disputable: {
    meaning: 'Only a settled or partially refunded transaction can be charged back.',
    action: 'Simulate a chargeback on a settled sandbox transaction.',
  },
  transaction_already_disputed: { meaning: 'The transaction already has a chargeback.', action: 'Nothing to do.' },
  endpoint_disabled: {
    meaning: 'The webhook endpoint is disabled, so nothing can be resent to it.',
    action: 'Enable it (`enabled: true`) first.',
  },
  endpoint_limit_reached: {
    meaning: 'The account already has the most webhook endpoints it may have (16).',
    action: 'Delete an endpoint you no longer use, or send several event types to one endpoint.',
  },
};
