/**
 * What a public route says of itself beyond its schemas: its name, its group, the errors it
 * may answer besides its kind's, and examples. Each route file declares its own with
 * `operation()` and spreads it into its route schema, so a route's whole contract sits in one
 * file; document.ts refuses to publish a route that has none (issue 30, decision 0284).
 */
export interface OperationInfo {
  operationId: string;
  summary: string;
  tag: Tag;
  /** Error statuses this operation answers besides the ones every operation of its kind does. */
  errors?: number[];
  requestExample?: Record<string, unknown>;
  /** Shown in the reference; redocly lint checks it against the response schema. */
  responseExample?: unknown;
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

/** The keys @fastify/swagger copies from a route schema into its operation (`x-` ones as they are). */
export interface OperationSchema {
  operationId: string;
  summary: string;
  tags: [Tag];
  'x-obolus-operation': Pick<OperationInfo, 'errors' | 'requestExample' | 'responseExample'>;
}

export function operation(info: OperationInfo): OperationSchema {
  const { operationId, summary, tag, ...rest } = info;
  return { operationId, summary, tags: [tag], 'x-obolus-operation': rest };
}
