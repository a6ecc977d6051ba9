/**
 * What the OpenAPI document says of each public operation beyond its schemas: its name,
 * its group and, for POSTs, an example body. Shapes come from the route schemas alone.
 * Keys are `METHOD path` as the document spells the path.
 */
export interface OperationInfo {
  operationId: string;
  summary: string;
  tag: Tag;
  /** Error statuses this operation answers besides the ones every operation of its kind does. */
  errors?: number[];
  requestExample?: Record<string, unknown>;
}

export const TAGS = {
  'Payment intents': 'Create a payment, hand its client_secret to the widget, read its status.',
  Transactions: 'One record per payment attempt (served at {app_url}); errors are `{"error": "…"}`.',
  Refunds: 'Give back all or part of a settled payment.',
  Products: 'Catalog products, each with a hosted checkout page.',
  'Webhook endpoints': 'Where Obolus sends signed events (Standard Webhooks), and the log of every attempt.',
  Events: 'Everything that happened on the account, kept 30 days: the same bodies webhooks deliver.',
  Account: 'The account a secret key belongs to.',
} as const;
export type Tag = keyof typeof TAGS;

export const OPERATIONS: Record<string, OperationInfo> = {
  'POST /api/v1/payment-intents': {
    operationId: 'createPaymentIntent',
    summary: 'Create a payment intent',
    tag: 'Payment intents',
    requestExample: { amount: 2000, currency: 'USD', mode: 'sandbox', reference: 'order_1234' },
  },
  'GET /api/v1/payment-intents': {
    operationId: 'listPaymentIntents',
    summary: 'List payment intents, newest first',
    tag: 'Payment intents',
  },
  'GET /api/v1/payment-intents/{id}': {
    operationId: 'retrievePaymentIntent',
    summary: 'Retrieve a payment intent',
    tag: 'Payment intents',
  },
  'POST /api/v1/payment-intents/{id}': {
    operationId: 'updatePaymentIntent',
    summary: 'Update a payment intent before it is paid (requires_payment or failed)',
    tag: 'Payment intents',
    requestExample: { amount: 2500, metadata: { order_id: '1042' } },
  },
  'POST /api/v1/payment-intents/{id}/cancel': {
    operationId: 'cancelPaymentIntent',
    summary: 'Cancel a payment intent (requires_payment, failed or requires_capture)',
    tag: 'Payment intents',
    // The void of an authorization at a live acquirer: refused (402) or unanswered (502).
    errors: [402, 502],
    requestExample: { cancellation_reason: 'requested_by_customer' },
  },
  'POST /api/v1/payment-intents/{id}/capture': {
    operationId: 'capturePaymentIntent',
    summary: 'Capture an authorized payment intent (requires_capture), fully or in part',
    tag: 'Payment intents',
    // The capture at a live acquirer: refused (402) or unanswered (502).
    errors: [402, 502],
    requestExample: { amount_to_capture: 1500 },
  },
  'GET /api/v1/transactions': {
    operationId: 'listTransactions',
    summary: 'List transactions, newest first',
    tag: 'Transactions',
  },
  'GET /api/v1/transactions/{id}': {
    operationId: 'retrieveTransaction',
    summary: 'Retrieve a transaction',
    tag: 'Transactions',
  },
  'POST /api/v1/transactions/{id}/refunds': {
    operationId: 'createRefund',
    summary: 'Refund a transaction, fully or in part',
    tag: 'Refunds',
    requestExample: { amount: 500 },
  },
  'GET /api/v1/refunds/{id}': { operationId: 'retrieveRefund', summary: 'Retrieve a refund', tag: 'Refunds' },
  'GET /api/v1/refunds': {
    operationId: 'listRefunds',
    summary: 'List refunds, newest first (by transaction, payment intent, status)',
    tag: 'Refunds',
  },
  'POST /api/v1/sandbox/transactions/{id}/chargeback': {
    operationId: 'simulateChargeback',
    summary: 'Simulate a chargeback on a sandbox transaction',
    tag: 'Transactions',
    requestExample: {},
  },
  'POST /api/v1/products': {
    operationId: 'createProduct',
    summary: 'Create a product',
    tag: 'Products',
    requestExample: { name: 'Sticker pack', amount: 500, currency: 'USD', mode: 'sandbox' },
  },
  'GET /api/v1/products': { operationId: 'listProducts', summary: 'List products', tag: 'Products' },
  'GET /api/v1/products/{id}': { operationId: 'retrieveProduct', summary: 'Retrieve a product', tag: 'Products' },
  'POST /api/v1/products/{id}': {
    operationId: 'updateProduct',
    summary: 'Update a product',
    tag: 'Products',
    requestExample: { amount: 700, active: true },
  },
  'POST /api/v1/webhook-endpoints': {
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint',
    tag: 'Webhook endpoints',
    requestExample: {
      url: 'https://shop.example.com/webhooks/obolus',
      enabled_events: ['payment_intent.succeeded', 'transaction.updated'],
    },
  },
  'GET /api/v1/webhook-endpoints': {
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints',
    tag: 'Webhook endpoints',
  },
  'GET /api/v1/webhook-endpoints/{id}': {
    operationId: 'retrieveWebhookEndpoint',
    summary: 'Retrieve a webhook endpoint',
    tag: 'Webhook endpoints',
  },
  'POST /api/v1/webhook-endpoints/{id}': {
    operationId: 'updateWebhookEndpoint',
    summary: 'Update a webhook endpoint',
    tag: 'Webhook endpoints',
    requestExample: { enabled: false },
  },
  'DELETE /api/v1/webhook-endpoints/{id}': {
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    tag: 'Webhook endpoints',
  },
  'POST /api/v1/webhook-endpoints/{id}/secret/roll': {
    operationId: 'rollWebhookEndpointSecret',
    summary: 'Roll the signing secret of a webhook endpoint',
    tag: 'Webhook endpoints',
    requestExample: { grace_period_hours: 24 },
  },
  'POST /api/v1/webhook-endpoints/{id}/resend/{event_id}': {
    operationId: 'resendWebhookEvent',
    summary: 'Send one event to an endpoint again',
    tag: 'Webhook endpoints',
  },
  'GET /api/v1/webhook-endpoints/{id}/attempts': {
    operationId: 'listWebhookAttempts',
    summary: 'List the delivery attempts of an endpoint',
    tag: 'Webhook endpoints',
  },
  'GET /api/v1/events': { operationId: 'listEvents', summary: 'List events, newest first', tag: 'Events' },
  'GET /api/v1/events/{id}': { operationId: 'retrieveEvent', summary: 'Retrieve an event', tag: 'Events' },
  'GET /api/v1/account': {
    operationId: 'retrieveAccount',
    summary: 'Retrieve the account of this key',
    tag: 'Account',
  },
};
