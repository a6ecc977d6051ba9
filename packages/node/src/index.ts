export type * from './api-types.ts';
export { Obolus, type ObolusOptions } from './client.ts';
export { type ClientErrorCode, type ErrorCode, type ErrorType, ObolusError } from './errors.ts';
export { Page, type PagePromise } from './pages.ts';
export type {
  CreatedRange,
  ListOptions,
  PaymentIntentFilters,
  PaymentIntentStatus,
  PaymentIntentUpdate,
  RefundFilters,
  RefundStatus,
  TransactionFilters,
  TransactionStatus,
} from './resources.ts';
export type { RequestOptions } from './transport.ts';
export { sign as signWebhook, verify as verifyWebhook, type WebhookHeaders } from './webhooks.ts';
