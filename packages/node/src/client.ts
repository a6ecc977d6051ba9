import { Endpoint, Events, PaymentIntents, Products, Refunds, Transactions, WebhookEndpoints } from './resources.ts';
import { Transport } from './transport.ts';
import { sign, verify } from './webhooks.ts';

export interface ObolusOptions {
  /** {base_url} of the Obolus service, e.g. https://pay.example.com */
  baseUrl: string;
  /** {app_url}, where transactions and refunds are served; baseUrl when left out. */
  appUrl?: string;
  /** Per request, each retry included (default 30 s). */
  timeoutMs?: number;
  /** Retries after a network error, 408, 409 idempotency_key_in_use, 429 or 5xx (default 2). */
  maxRetries?: number;
  /** First backoff delay (default 500 ms), doubled on each retry with jitter, at most 8 s. */
  retryBaseDelayMs?: number;
  /** Another fetch (a proxy agent, a test double); the global fetch by default. */
  fetch?: typeof fetch;
}

/** The Obolus merchant API for a server holding a secret key. */
export class Obolus {
  readonly paymentIntents: PaymentIntents;
  readonly transactions: Transactions;
  readonly refunds: Refunds;
  readonly products: Products;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly events: Events;
  readonly webhooks = { verify, sign };

  constructor(secretKey: string, options: ObolusOptions) {
    if (typeof secretKey !== 'string' || !secretKey.startsWith('sk_')) {
      throw new TypeError('new Obolus(secretKey, …): the secret key starts with sk_.');
    }
    if (!options?.baseUrl) throw new TypeError('new Obolus(secretKey, { baseUrl }): baseUrl is required.');
    const transport = new Transport(secretKey, {
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 2,
      retryBaseDelayMs: options.retryBaseDelayMs ?? 500,
      maxDelayMs: 8_000,
      fetch: options.fetch ?? globalThis.fetch,
    });
    const base = new Endpoint(transport, options.baseUrl);
    const app = new Endpoint(transport, options.appUrl ?? options.baseUrl);
    this.paymentIntents = new PaymentIntents(base);
    this.products = new Products(base);
    this.webhookEndpoints = new WebhookEndpoints(base);
    this.events = new Events(base);
    this.transactions = new Transactions(app);
    this.refunds = new Refunds(app, base);
  }
}
