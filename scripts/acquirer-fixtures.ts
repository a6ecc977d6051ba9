// Writes the acquirers' API definitions the contract tests validate against
// (packages/server/test/fixtures/acquirers/, decision 0190) from the acquirers' own documents:
//
//   node scripts/acquirer-fixtures.ts <acquirer-specs dir> <stripe spec3.json>
//
// <acquirer-specs dir>: the team's copy of the definitions (shared/acquirer-specs: Checkout.com's
// built OpenAPI document and its nas_spec sources). <stripe spec3.json>: openapi/spec3.json of
// github stripe/openapi at commit 63a674638635c68de26b9f3add13e58198f4df44 (API 2023-08-16), the
// document shared/acquirer-specs/stripe excerpts; the stripe SDK's own event list comes from
// acquirer-specs/stripe/stripe-node-23.1.0-types.excerpt.md. Each fixture keeps the operations Obolus calls and
// every schema they reach, copied as they are (descriptions and examples dropped), with its source
// and licence line. The documentation-page facts the 2021 documents lack are in a fixture written
// by hand (checkout-docs.json), not here.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// biome-ignore lint/suspicious/noExplicitAny: the acquirers' documents are untyped JSON
type Json = Record<string, any>;

const OUT = new URL('../packages/server/test/fixtures/acquirers/', import.meta.url);
const [specsDir, stripeSpec] = process.argv.slice(2);
if (!specsDir || !stripeSpec) {
  console.error('usage: node scripts/acquirer-fixtures.ts <acquirer-specs dir> <stripe spec3.json>');
  process.exit(2);
}

/** The document reduced to `operations` and the schemas they reach; refs to `stop` are left out (left open by the validator). */
function reduce(
  document: Json,
  operations: Record<string, string[]>,
  stop: (name: string) => boolean,
  also: string[] = [],
): Json {
  const paths: Json = {};
  for (const [path, methods] of Object.entries(operations)) {
    paths[path] = Object.fromEntries(methods.map((m) => [m, strip(document.paths[path][m])]));
  }
  const schemas: Json = {};
  const queue = [...refsIn(paths), ...also];
  while (queue.length > 0) {
    const name = queue.pop() as string;
    if (name in schemas || stop(name)) continue;
    const schema = document.components.schemas[name];
    if (!schema) continue;
    schemas[name] = strip(schema);
    queue.push(...refsIn(schema));
  }
  return { paths, components: { schemas: sortKeys(schemas) } };
}

const refsIn = (value: unknown) =>
  [...JSON.stringify(value).matchAll(/#\/components\/schemas\/([A-Za-z0-9_.-]+)/g)].map((m) => m[1] as string);

/** Prose and examples are not validation: dropped to keep the fixtures readable. */
function strip(value: unknown): Json {
  if (Array.isArray(value)) return value.map(strip) as unknown as Json;
  if (!value || typeof value !== 'object') return value as Json;
  const drop = new Set(['description', 'example', 'examples', 'x-code-samples', 'summary', 'tags', 'security']);
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !drop.has(k))
      .map(([k, v]) => [k, strip(v)]),
  );
}

const sortKeys = (o: Json) =>
  Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );

function write(name: string, fixture: Json): void {
  writeFileSync(new URL(name, OUT), `${JSON.stringify(fixture, null, 1)}\n`);
  console.log(`wrote ${name}`);
}

// Stripe: the calls of connectors/stripe/processor.ts. The resources it never expands (customers,
// invoices, accounts, …) are other API objects: left open.
const stripe = JSON.parse(readFileSync(stripeSpec, 'utf8')) as Json;
const ours = new Set(['payment_intent', 'charge', 'refund', 'dispute', 'event', 'payment_method', 'error']);
const foreignResource = (name: string) =>
  !ours.has(name) && 'x-resourceId' in (stripe.components.schemas[name] ?? {}) && !name.startsWith('payment_method_');
const stripeOperations = {
  '/v1/payment_intents': ['post'],
  '/v1/payment_intents/search': ['get'],
  '/v1/payment_intents/{intent}': ['get'],
  '/v1/payment_intents/{intent}/cancel': ['post'],
  '/v1/refunds': ['post'],
};
const stripeReduced = reduce(stripe, stripeOperations, foreignResource, [...ours]);
// The pinned SDK (stripe 23.1.0, API 2026-10-28) lists event types the 2023 document predates (refund.failed).
const sdkTypes = readFileSync(join(specsDir, 'stripe/stripe-node-23.1.0-types.excerpt.md'), 'utf8');
const sdkEvents = [...(sdkTypes.split('## ')[1] ?? '').matchAll(/^'([a-z_.]+)'/gm)].map((m) => m[1] as string);
write('stripe-openapi.json', {
  source:
    'github stripe/openapi, openapi/spec3.json at commit 63a674638635c68de26b9f3add13e58198f4df44 (API version ' +
    `${stripe.info.version}); operations Obolus calls and the schemas they reach, descriptions and examples removed`,
  licence: 'MIT License, Copyright (c) 2011- Stripe, Inc. (https://stripe.com): github stripe/openapi LICENSE',
  openapi: stripe.openapi,
  ...stripeReduced,
  'x-webhook-event-types': [
    ...new Set([
      ...stripe.paths['/v1/webhook_endpoints'].post.requestBody.content['application/x-www-form-urlencoded'].schema
        .properties.enabled_events.items.enum,
      ...sdkEvents,
    ]),
  ],
  'x-webhook-event-types-source':
    'the enabled_events enum of POST /v1/webhook_endpoints in the document above, and the event types the stripe ' +
    'npm package 23.1.0 declares (WebhookEndpointCreateParams.EnabledEvent), for the types added since 2023',
});

// Checkout.com: the unified payments API (NAS) as built in 2021, with the event types of its sources.
const checkout = JSON.parse(readFileSync(join(specsDir, 'checkout/swagger-2021-full.json'), 'utf8')) as Json;
const checkoutOperations = {
  '/payments': ['post'],
  '/payments/{id}': ['get'],
  '/payments/{id}/actions': ['get'],
  '/payments/{id}/refunds': ['post'],
  '/payments/{id}/voids': ['post'],
};
// The error bodies every operation may answer (documented on the idempotency page, not per path).
const checkoutReduced = reduce(checkout, checkoutOperations, () => false, ['Error', 'ValidationError']);
const eventTypes = readFileSync(
  join(specsDir, 'checkout/nas_spec/components/schemas/Events/EventTypesObject.yaml'),
  'utf8',
);
write('checkout-openapi.json', {
  source:
    'github checkout/checkout-api-reference, branch gh-pages, preview/crusoe/swagger.json at commit ' +
    '504dd8fb255f0af8ef1ada1322431256a478000b (2021); event types from nas_spec/components/schemas/Events/' +
    'EventTypesObject.yaml at 2fc946cd22e9a6b8e3a33db3c5f4be4d3fe7d74c; operations Obolus calls and the schemas ' +
    'they reach, descriptions and examples removed',
  licence: 'MIT License, Checkout.com: github checkout/checkout-api-reference',
  openapi: checkout.openapi,
  ...checkoutReduced,
  'x-event-types': [...eventTypes.matchAll(/^\s+- ([a-z_]+)$/gm)].map((m) => m[1]),
});
