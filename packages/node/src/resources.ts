import type * as Api from './api-types.ts';
import { type PagePromise, paginate } from './pages.ts';
import type { RequestOptions, Transport } from './transport.ts';

/** Options of every list call: page size (1 to 100) and the id to start after. */
export interface ListOptions {
  limit?: number;
  startingAfter?: string;
}

interface WireList<T> {
  data: T[];
  has_more: boolean;
}

const path = (...parts: string[]) => parts.map(encodeURIComponent).join('/');

/** The calls of one address ({base_url} or {app_url}), relative to its /api/v1. */
export class Endpoint {
  readonly #transport: Transport;
  readonly #root: string;
  constructor(transport: Transport, baseUrl: string) {
    this.#transport = transport;
    this.#root = `${baseUrl.replace(/\/+$/, '')}/api/v1/`;
  }
  get<T>(at: string): Promise<T> {
    return this.#transport.request<T>('GET', this.#root + at);
  }
  post<T>(at: string, body: unknown, options?: RequestOptions): Promise<T> {
    return this.#transport.request<T>('POST', this.#root + at, { body, ...(options ? { options } : {}) });
  }
  delete<T>(at: string): Promise<T> {
    return this.#transport.request<T>('DELETE', this.#root + at);
  }
  list<T>(at: string, options: ListOptions, filters: Record<string, string | number | undefined> = {}): PagePromise<T> {
    return paginate((after) =>
      this.#transport.request<WireList<T>>('GET', this.#root + at, {
        query: { ...filters, limit: options.limit, starting_after: after ?? options.startingAfter },
      }),
    );
  }
}

/** One group of API calls, over the address it is served at. */
class Resource {
  protected readonly api: Endpoint;
  constructor(api: Endpoint) {
    this.api = api;
  }
}

/** A payment intent's status: the spec's five, and Stripe's requires_capture and canceled (docs/lifecycle.md). */
export type PaymentIntentStatus = Api.PaymentIntent['status'];
/** A transaction's status code (docs/transactions.md): 10 Pending … 50 Chargeback. */
export type TransactionStatus = NonNullable<Api.ListTransactionsQuery['status']>;
export type RefundStatus = Api.Refund['status'];

/** `created` bounds are Unix seconds. */
export interface CreatedRange {
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

const createdQuery = (created: CreatedRange = {}) => ({
  'created[gt]': created.gt,
  'created[gte]': created.gte,
  'created[lt]': created.lt,
  'created[lte]': created.lte,
});

/** Filters of paymentIntents.list: an order is found by its `reference` in one call. */
export interface PaymentIntentFilters extends ListOptions {
  status?: PaymentIntentStatus;
  mode?: 'live' | 'sandbox';
  reference?: string;
  externalid?: string;
  created?: CreatedRange;
}

/** What can change before payment: mode and currency never do. */
export type PaymentIntentUpdate = Omit<Api.UpdatePaymentIntentBody, 'mode' | 'currency'>;

export class PaymentIntents extends Resource {
  create(params: Api.CreatePaymentIntentBody, options?: RequestOptions): Promise<Api.PaymentIntent> {
    return this.api.post('payment-intents', params, options);
  }
  retrieve(id: string): Promise<Api.PaymentIntent> {
    return this.api.get(path('payment-intents', id));
  }
  /** Before payment only (requires_payment or failed); null clears a text, metadata merges ("" removes a key). */
  update(id: string, params: PaymentIntentUpdate, options?: RequestOptions): Promise<Api.PaymentIntent> {
    return this.api.post(path('payment-intents', id), params, options);
  }
  /** From requires_payment, failed or requires_capture (the authorization is voided). */
  cancel(id: string, params: Api.CancelPaymentIntentBody = {}, options?: RequestOptions): Promise<Api.PaymentIntent> {
    return this.api.post(`${path('payment-intents', id)}/cancel`, params, options);
  }
  /** A requires_capture intent (capture_method manual): all of it, or `amount_to_capture` (the rest is released). */
  capture(id: string, params: Api.CapturePaymentIntentBody = {}, options?: RequestOptions): Promise<Api.PaymentIntent> {
    return this.api.post(`${path('payment-intents', id)}/capture`, params, options);
  }
  list(filters: PaymentIntentFilters = {}): PagePromise<Api.PaymentIntent> {
    const { status, mode, reference, externalid, created } = filters;
    return this.api.list('payment-intents', filters, { status, mode, reference, externalid, ...createdQuery(created) });
  }
}

/** Filters of transactions.list (docs/transactions.md); `created` bounds are Unix seconds. */
export interface TransactionFilters extends ListOptions {
  status?: TransactionStatus;
  mode?: 'live' | 'sandbox';
  paymentIntent?: string;
  product?: string;
  externalid?: string;
  created?: { gt?: number; gte?: number; lt?: number; lte?: number };
}

export class Transactions extends Resource {
  retrieve(id: string): Promise<Api.Transaction> {
    return this.api.get(path('transactions', id));
  }
  list(filters: TransactionFilters = {}): PagePromise<Api.Transaction> {
    const { created, status, mode, paymentIntent, product, externalid } = filters;
    return this.api.list('transactions', filters, {
      status,
      mode,
      payment_intent: paymentIntent,
      product,
      externalid,
      ...createdQuery(created),
    });
  }
  /** Sandbox only: the card network's dispute, on demand. */
  simulateChargeback(id: string, options?: RequestOptions): Promise<Api.Transaction> {
    return this.api.post(`${path('sandbox', 'transactions', id)}/chargeback`, {}, options);
  }
}

/** Filters of refunds.list. */
export interface RefundFilters extends ListOptions {
  transaction?: string;
  paymentIntent?: string;
  status?: RefundStatus;
}

/** Made on {app_url} with their transaction; read on {base_url} as objects of their own. */
export class Refunds extends Resource {
  readonly #base: Endpoint;
  constructor(app: Endpoint, base: Endpoint) {
    super(app);
    this.#base = base;
  }
  retrieve(id: string): Promise<Api.Refund> {
    return this.#base.get(path('refunds', id));
  }
  list(filters: RefundFilters = {}): PagePromise<Api.Refund> {
    const { transaction, paymentIntent, status } = filters;
    return this.#base.list('refunds', filters, { transaction, payment_intent: paymentIntent, status });
  }
  /** Without `amount`, everything not yet refunded. */
  create(
    transactionId: string,
    params: Api.CreateRefundBody = {},
    options?: RequestOptions,
  ): Promise<Api.RefundCreated> {
    return this.api.post(`${path('transactions', transactionId)}/refunds`, params, options);
  }
}

export class Products extends Resource {
  create(params: Api.CreateProductBody, options?: RequestOptions): Promise<Api.Product> {
    return this.api.post('products', params, options);
  }
  retrieve(id: string): Promise<Api.Product> {
    return this.api.get(path('products', id));
  }
  update(id: string, params: Api.UpdateProductBody, options?: RequestOptions): Promise<Api.Product> {
    return this.api.post(path('products', id), params, options);
  }
  list(options: ListOptions = {}): PagePromise<Api.Product> {
    return this.api.list('products', options);
  }
}

export class WebhookEndpoints extends Resource {
  create(params: Api.CreateWebhookEndpointBody, options?: RequestOptions): Promise<Api.WebhookEndpointWithSecret> {
    return this.api.post('webhook-endpoints', params, options);
  }
  retrieve(id: string): Promise<Api.WebhookEndpoint> {
    return this.api.get(path('webhook-endpoints', id));
  }
  update(id: string, params: Api.UpdateWebhookEndpointBody, options?: RequestOptions): Promise<Api.WebhookEndpoint> {
    return this.api.post(path('webhook-endpoints', id), params, options);
  }
  delete(id: string): Promise<{ id: string; object: 'webhook_endpoint'; deleted: true }> {
    return this.api.delete(path('webhook-endpoints', id));
  }
  list(options: ListOptions = {}): PagePromise<Api.WebhookEndpoint> {
    return this.api.list('webhook-endpoints', options);
  }
  /** A new signing secret; the old one keeps signing for `gracePeriodHours` (0: stops at once). */
  rollSecret(id: string, params: { gracePeriodHours?: number } = {}, options?: RequestOptions) {
    const body: Api.RollWebhookEndpointSecretBody = { grace_period_hours: params.gracePeriodHours };
    return this.api.post<Api.WebhookEndpointWithSecret>(`${path('webhook-endpoints', id)}/secret/roll`, body, options);
  }
  /** Sends one event to this endpoint again. */
  resend(id: string, eventId: string, options?: RequestOptions): Promise<Api.WebhookDelivery> {
    return this.api.post(path('webhook-endpoints', id, 'resend', eventId), {}, options);
  }
  listAttempts(id: string, options: ListOptions & { eventId?: string } = {}): PagePromise<Api.WebhookAttempt> {
    return this.api.list(`${path('webhook-endpoints', id)}/attempts`, options, { event_id: options.eventId });
  }
}

export class Events extends Resource {
  retrieve(id: string): Promise<Api.Event> {
    return this.api.get(path('events', id));
  }
  /** `type` takes one type or a family (`payment_intent.*`); `objectId` the id of an intent or transaction. */
  list(options: ListOptions & { type?: string; objectId?: string } = {}): PagePromise<Api.Event> {
    return this.api.list('events', options, { type: options.type, object_id: options.objectId });
  }
}
