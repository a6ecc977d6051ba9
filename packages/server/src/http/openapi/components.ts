import type { TSchema } from 'typebox';
import { EventOut } from '../api/v1/event-schema.ts';
import { PaymentIntentOut } from '../api/v1/payment-intent-schema.ts';
import { ProductOut } from '../api/v1/product-schema.ts';
import { RefundCreatedOut, RefundOut, TransactionOut } from '../api/v1/transactions/transaction-schema.ts';
import { AttemptOut, DeliveryOut } from '../api/v1/webhook-delivery-schema.ts';
import { WebhookEndpointOut, WebhookEndpointWithSecretOut } from '../api/v1/webhook-endpoint-schema.ts';

/**
 * The route schemas that get a name in the document. Wherever a route's schema holds one of
 * these objects, the document says `$ref` instead of repeating it (the SDK's types use the names).
 */
export const NAMED_SCHEMAS: Record<string, TSchema> = {
  PaymentIntent: PaymentIntentOut,
  Transaction: TransactionOut,
  Refund: RefundOut,
  RefundCreated: RefundCreatedOut,
  Product: ProductOut,
  WebhookEndpoint: WebhookEndpointOut,
  WebhookEndpointWithSecret: WebhookEndpointWithSecretOut,
  WebhookDelivery: DeliveryOut,
  WebhookAttempt: AttemptOut,
  Event: EventOut,
};

/** Replaces, anywhere in `node`, a schema equal to a named one with a reference to it. */
export function referenceNamedSchemas(node: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(node)) return node.map((item) => referenceNamedSchemas(item, names));
  if (node === null || typeof node !== 'object') return node;
  const name = names.get(JSON.stringify(node));
  if (name !== undefined) return { $ref: `#/components/schemas/${name}` };
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, referenceNamedSchemas(value, names)]));
}

/** The named schemas as components, each referring to the others where it holds them. */
export function namedComponents(): { schemas: Record<string, unknown>; names: Map<string, string> } {
  const plain = Object.entries(NAMED_SCHEMAS).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema))]);
  const names = new Map(plain.map(([name, schema]) => [JSON.stringify(schema), name as string]));
  const schemas: Record<string, unknown> = {};
  for (const [name, schema] of plain) {
    const own = new Map([...names].filter(([, other]) => other !== name));
    schemas[name] = referenceNamedSchemas(schema, own);
  }
  return { schemas, names };
}
