import type { Ajv } from 'ajv';
import type { Exchange } from '../../src/dev/double-http.ts';
import { decodeForm } from '../../src/dev/stripe-double/form.ts';
import {
  check,
  checkoutDoc,
  checkoutPages,
  exact,
  forms,
  type Json,
  parse,
  pointer,
  prime,
  stripeDoc,
  stripeEventTypes,
  templateOf,
} from './acquirer-definitions.ts';

/**
 * The acquirers' published API definitions, held against every request a connector sends to
 * a double and every answer and webhook a double gives (decision 0190). The definitions are
 * test/fixtures/acquirers/ (copied from the acquirers' own documents, with source and
 * licence). A double that drifts from them, or a connector that sends what the acquirer does
 * not define, fails the test that made the exchange.
 *
 * The one exemption: Stripe's raw card parameters. `payment_method_data[card]` (and
 * `payment_method_data[type]=card`) are not in Stripe's published OpenAPI document: they are
 * a private API that Stripe enables per account (raw card data access, PCI DSS SAQ D; see
 * docs/live.md). The validator takes them out of the request before checking the rest.
 */

export const RAW_CARD_EXEMPTION = 'payment_method_data[card] (Stripe raw card data, outside the published API)';

/** Stripe: request parameters, the documented answer, and nothing outside the document but the exemption. */
export function stripeViolations(x: Exchange): string[] {
  const what = `stripe ${x.method} ${x.path}`;
  const template = templateOf(stripeDoc.document, x.path);
  const operation = template && stripeDoc.document.paths[template][x.method.toLowerCase()];
  if (!template || !operation) return [`${what}: not an operation of Stripe's API document`];
  const base = `stripe#/paths/${pointer(template)}/${x.method.toLowerCase()}`;
  const problems = [...authorization(x, what)];
  if (x.method === 'POST') {
    const { params, problems: card } = withoutRawCard(decodeForm(x.body), base, what);
    const schema = `${base}/requestBody/content/application~1x-www-form-urlencoded/schema`;
    problems.push(...card, ...check(forms, schema, params, `${what} request`));
  } else {
    problems.push(...queryViolations(forms, operation, base, decodeForm(x.query.toString()), what));
  }
  if (x.status === 0) return problems;
  const status = operation.responses[String(x.status)] ? String(x.status) : 'default';
  problems.push(
    ...check(
      exact,
      `${base}/responses/${status}/content/application~1json/schema`,
      parse(x.answer),
      `${what} -> ${x.status}`,
    ),
  );
  return problems;
}

/**
 * The one exemption (see above): raw card parameters are Stripe's private API. What else the
 * payment method data carries (the cardholder's name) is checked against its published schema.
 */
function withoutRawCard(params: Json, base: string, what: string): { params: Json; problems: string[] } {
  const data = params.payment_method_data as Json | undefined;
  if (data?.type !== 'card') return { params, problems: [] };
  const { card: _card, type: _type, ...rest } = data;
  const schema = `${base}/requestBody/content/application~1x-www-form-urlencoded/schema/properties/payment_method_data/properties`;
  const problems = Object.entries(rest).flatMap(([key, value]) =>
    check(forms, `${schema}/${pointer(key)}`, value, `${what} payment_method_data[${key}]`),
  );
  const { payment_method_data: _, ...others } = params;
  return { params: others, problems };
}

function queryViolations(ajv: Ajv, operation: Json, base: string, query: Json, what: string): string[] {
  const problems: string[] = [];
  const parameters = (operation.parameters ?? []) as Json[];
  parameters.forEach((parameter, i) => {
    if (parameter.in !== 'query') return;
    const value = query[parameter.name];
    if (value === undefined) {
      if (parameter.required) problems.push(`${what}: query parameter ${parameter.name} is required`);
      return;
    }
    problems.push(...check(ajv, `${base}/parameters/${i}/schema`, value, `${what} query ${parameter.name}`));
  });
  const known = new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name));
  for (const name of Object.keys(query)) if (!known.has(name)) problems.push(`${what}: unknown query ${name}`);
  return problems;
}

function authorization(x: Exchange, what: string): string[] {
  const value = x.headers.authorization;
  return typeof value === 'string' && /^Bearer \S+$/.test(value) ? [] : [`${what}: no Bearer secret key`];
}

/** Checkout.com: the 2021 document, overruled by the newer documentation pages (checkout-docs.json). */
export function checkoutViolations(x: Exchange): string[] {
  const what = `checkout ${x.method} ${x.path}`;
  const problems = [...authorization(x, what)];
  if (x.method === 'GET' && x.path === '/payments') return [...problems, ...checkoutListViolations(x, what)];
  const template = templateOf(checkoutDoc.document, x.path);
  const operation = template && checkoutDoc.document.paths[template][x.method.toLowerCase()];
  if (!template || !operation) return [`${what}: not an operation of Checkout.com's API`];
  const base = `checkout#/paths/${pointer(template)}/${x.method.toLowerCase()}`;
  if (x.method === 'POST') {
    const key = x.headers['cko-idempotency-key'];
    if (key !== undefined && typeof key !== 'string') problems.push(`${what}: Cko-Idempotency-Key is not one string`);
    const schema = `${base}/requestBody/content/application~1json/schema`;
    problems.push(...check(exact, schema, parse(x.body), `${what} request`));
  } else if ([...x.query.keys()].length > 0) {
    problems.push(`${what}: unknown query ${x.query}`);
  }
  if (x.status === 0) return problems;
  return [...problems, ...checkoutAnswerViolations(operation, base, x, what)];
}

function checkoutAnswerViolations(operation: Json, base: string, x: Exchange, what: string): string[] {
  const answer = parse(x.answer);
  const documented = operation.responses[String(x.status)];
  if (documented) {
    const json = documented.content?.['application/json'];
    if (!json)
      return x.answer === '' || x.status >= 400 ? [] : [`${what} -> ${x.status}: a body the document gives none`];
    return check(
      exact,
      `${base}/responses/${x.status}/content/application~1json/schema`,
      answer,
      `${what} -> ${x.status}`,
    );
  }
  if (x.status === 429 && x.method === 'POST')
    return check(exact, 'checkout-docs#/responses/429', answer, `${what} -> 429`);
  if (x.status >= 500) return check(exact, 'checkout-docs#/responses/5xx', answer, `${what} -> ${x.status}`);
  return [`${what} -> ${x.status}: not a documented status`];
}

function checkoutListViolations(x: Exchange, what: string): string[] {
  const base = 'checkout-docs#/operations/GET ~1payments';
  const problems = check(exact, `${base}/query`, Object.fromEntries(x.query), `${what} query`);
  if (x.status === 0) return problems;
  if (x.status >= 500) return [...problems, ...check(exact, 'checkout-docs#/responses/5xx', parse(x.answer), what)];
  const documented = checkoutPages.operations['GET /payments'].responses[String(x.status)];
  if (!documented) return [...problems, `${what} -> ${x.status}: not a documented status`];
  return [...problems, ...check(exact, `${base}/responses/${x.status}`, parse(x.answer), `${what} -> ${x.status}`)];
}

const STRIPE_OBJECTS: [RegExp, string][] = [
  [/^payment_intent\./, 'payment_intent'],
  [/^charge\.dispute\./, 'dispute'],
  [/^(charge\.)?refund\./, 'refund'],
  [/^charge\./, 'charge'],
];

/** A Stripe event as the double sends it: the event object, a type Stripe lists, and its object's own schema. */
export function stripeEventViolations(event: Json): string[] {
  const what = `stripe event ${event.type}`;
  const problems = check(exact, 'stripe#/components/schemas/event', event, what);
  if (!stripeEventTypes.has(event.type)) problems.push(`${what}: not an event type Stripe documents`);
  const object = STRIPE_OBJECTS.find(([pattern]) => pattern.test(String(event.type)))?.[1];
  if (object) problems.push(...check(exact, `stripe#/components/schemas/${object}`, event.data?.object, what));
  return problems;
}

/** A Checkout.com webhook: the documented envelope, a documented event name, and its data's documented shape. */
export function checkoutEventViolations(event: Json): string[] {
  const what = `checkout event ${event.type}`;
  const problems = check(exact, 'checkout-docs#/webhooks/envelope', event, what);
  const kinds = checkoutPages.webhooks.types as Record<string, string[]>;
  const kind = Object.keys(kinds).find((k) => kinds[k]?.includes(event.type));
  if (!kind) return [...problems, `${what}: not an event type Checkout.com documents`];
  return [...problems, ...check(exact, `checkout-docs#/webhooks/data/${kind}`, event.data, what)];
}

/** Names left open because the copied excerpt does not reach them (other API resources). */
export const OPEN_SCHEMAS = { stripe: stripeDoc.open, checkout: checkoutDoc.open };

/** Collects what a double's traffic breaks of the definitions; `assertClean` fails the test that caused it. */
export class ContractWatch {
  readonly violations: string[] = [];
  readonly #exchange: (x: Exchange) => string[];
  readonly #event: (event: Json) => string[];

  constructor(acquirer: 'stripe' | 'checkout') {
    this.#exchange = acquirer === 'stripe' ? stripeViolations : checkoutViolations;
    this.#event = acquirer === 'stripe' ? stripeEventViolations : checkoutEventViolations;
    // Compiled now, before any test's deadline runs: compiling inside a double's answer would delay it.
    prime(acquirer);
  }

  exchange = (x: Exchange): void => {
    this.violations.push(...this.#safely(() => this.#exchange(x)));
  };

  event = (event: Json): void => {
    this.violations.push(...this.#safely(() => this.#event(event)));
  };

  #safely(run: () => string[]): string[] {
    try {
      return run();
    } catch (error) {
      return [`contract check failed: ${(error as Error).message}`];
    }
  }

  assertClean(): void {
    const found = this.violations.splice(0);
    if (found.length > 0) {
      throw new Error(`the acquirer's API definitions were not kept:\n${[...new Set(found)].join('\n')}`);
    }
  }
}

/**
 * Watches a double's traffic. Its close() fails with every violation not yet asserted, so a
 * test file whose tests never call assertClean still cannot pass over a drifted double.
 */
export function watchDouble<
  D extends {
    observers: ((x: Exchange) => void)[];
    webhooks: { observers: ((e: Json) => void)[] };
    close(): Promise<void>;
  },
>(double: D, watch: ContractWatch): D & { contract: ContractWatch } {
  double.observers.push(watch.exchange);
  double.webhooks.observers.push(watch.event);
  const close = double.close.bind(double);
  return Object.assign(double, {
    contract: watch,
    async close() {
      await close();
      watch.assertClean();
    },
  });
}
