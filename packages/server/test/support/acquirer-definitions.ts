import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * The acquirers' API definitions (test/fixtures/acquirers/, decision 0190), loaded once and
 * compiled by Ajv for the contract checks of acquirer-contract.ts.
 */

export type Json = Record<string, any>;

const FIXTURES = new URL('../fixtures/acquirers/', import.meta.url);
export const load = (name: string) => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as Json;

/** OpenAPI 3.0 into what Ajv compiles: discriminators as if/then, refs outside the excerpt open. */
function prepare(document: Json): { document: Json; open: string[] } {
  const doc = structuredClone(document);
  const schemas = doc.components.schemas as Json;
  const open = new Set<string>();
  for (const [name, schema] of Object.entries(schemas)) {
    const mapping = (schema as Json).discriminator?.mapping as Record<string, string> | undefined;
    if (!mapping) continue;
    const { discriminator: _, ...base } = schema as Json;
    schemas[`${name}__base`] = base;
    const branches = Object.entries(mapping).map(([type, ref]) => ({
      if: { properties: { type: { const: type } }, required: ['type'] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own keyword
      then: { $ref: ref },
    }));
    schemas[name] = { allOf: [{ $ref: `#/components/schemas/${name}__base` }, ...branches] };
    // A variant includes its base: the base without the branches, or it would loop.
    for (const ref of Object.values(mapping)) {
      const variant = ref.split('/').pop() as string;
      if (schemas[variant]) schemas[variant] = retarget(schemas[variant], name);
    }
  }
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const record = node as Json;
    // A oneOf without a discriminator (payment or payout details) can match both where the
    // variants share their fields (a Declined payment is a valid payout too): read it as anyOf.
    if (Array.isArray(record.oneOf) && !record.discriminator) {
      record.anyOf = record.oneOf;
      delete record.oneOf;
    }
    // OpenAPI 3.0's nullable on a schema without a type (a $ref, an anyOf): null is one more choice.
    if (record.nullable === true && record.type === undefined) {
      const { nullable: _, ...rest } = record;
      for (const key of Object.keys(record)) delete record[key];
      record.anyOf = [rest, { type: 'null' }];
    }
    const ref = record.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/') && !(ref.slice(21) in schemas)) {
      open.add(ref.slice(21));
      delete record.$ref;
    }
    Object.values(record).forEach(walk);
  };
  walk(doc);
  return { document: doc, open: [...open].sort() };
}

const retarget = (schema: Json, base: string): Json =>
  JSON.parse(
    JSON.stringify(schema).replaceAll(`"#/components/schemas/${base}"`, `"#/components/schemas/${base}__base"`),
  );

export const stripeDoc = prepare(load('stripe-openapi.json'));
export const checkoutDoc = prepare(load('checkout-openapi.json'));
export const checkoutPages = load('checkout-docs.json');

const newAjv = (coerceTypes: boolean) => {
  const ajv = addFormats.default(new Ajv({ strict: false, allErrors: false, coerceTypes, logger: false }));
  ajv.addSchema(stripeDoc.document, 'stripe');
  ajv.addSchema(checkoutDoc.document, 'checkout');
  ajv.addSchema(checkoutPages, 'checkout-docs');
  return ajv;
};
/** JSON bodies and answers are checked as they are; Stripe's form-encoded requests carry every value as text. */
export const exact = newAjv(false);
export const forms = newAjv(true);

const compiled = new Map<string, ValidateFunction>();
export function validatorOf(ajv: Ajv, ref: string): ValidateFunction {
  const key = `${ajv === forms ? 'form' : 'json'} ${ref}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
    compiled.set(key, validate);
  }
  return validate;
}

export const pointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

export function check(ajv: Ajv, ref: string, value: unknown, what: string): string[] {
  const validate = validatorOf(ajv, ref);
  if (validate(value)) return [];
  return [`${what}: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`];
}

/** The path template of `path` in `document`, literal segments before parameters. */
export function templateOf(document: Json, path: string): string | undefined {
  const templates = Object.keys(document.paths).sort((a, b) => a.split('{').length - b.split('{').length);
  return templates.find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
}

export const parse = (text: string): unknown => (text === '' ? null : JSON.parse(text));

/** The event types Stripe lists (its document's and the pinned SDK's). */
export const stripeEventTypes = new Set(load('stripe-openapi.json')['x-webhook-event-types'] as string[]);

/** Compiles every schema an acquirer's checks use. */
export function prime(acquirer: 'stripe' | 'checkout'): void {
  const doc = acquirer === 'stripe' ? stripeDoc.document : checkoutDoc.document;
  for (const [path, methods] of Object.entries(doc.paths as Json)) {
    for (const [method, operation] of Object.entries(methods as Json)) {
      const base = `${acquirer}#/paths/${pointer(path)}/${method}`;
      for (const [status, response] of Object.entries((operation as Json).responses as Json)) {
        if ((response as Json).content?.['application/json']) {
          validatorOf(exact, `${base}/responses/${status}/content/application~1json/schema`);
        }
      }
      const body = (operation as Json).requestBody?.content ?? {};
      if (body['application/json']) validatorOf(exact, `${base}/requestBody/content/application~1json/schema`);
      if (body['application/x-www-form-urlencoded']) {
        validatorOf(forms, `${base}/requestBody/content/application~1x-www-form-urlencoded/schema`);
      }
    }
  }
  if (acquirer === 'stripe') {
    for (const name of ['event', 'payment_intent', 'refund', 'dispute', 'charge']) {
      validatorOf(exact, `stripe#/components/schemas/${name}`);
    }
  } else {
    for (const kind of ['payment', 'refund', 'dispute']) validatorOf(exact, `checkout-docs#/webhooks/data/${kind}`);
    validatorOf(exact, 'checkout-docs#/webhooks/envelope');
  }
}
