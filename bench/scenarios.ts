/**
 * The scenarios, in the order a user meets them: create intents (durable), then, right
 * after that write burst, retrieve a transaction, retrieve an intent, list transactions,
 * and confirm sandbox payments (frictionless card, one fresh intent per request).
 */
import type { JWK } from 'jose';
import { encryptCard } from './card.ts';
import { type LoadPlan, type Measured, measure } from './load.ts';

export const SCENARIOS = [
  'create_intent',
  'retrieve_transaction',
  'retrieve_intent',
  'list_transactions',
  'confirm_sandbox',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** `--only a,b`: the scenarios to run (all when not given); an unknown name is refused. */
export function chosenScenarios(argv: readonly string[]): readonly Scenario[] {
  const at = argv.indexOf('--only');
  if (at < 0) return SCENARIOS;
  const names = (argv[at + 1] ?? '').split(',').filter(Boolean);
  const unknown = names.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(`--only takes scenarios separated by commas, of: ${SCENARIOS.join(', ')}`);
  }
  return SCENARIOS.filter((name) => names.includes(name));
}

export interface Keys {
  secret: string;
  client: string;
}

const INTENT_BODY = JSON.stringify({ amount: 2000, currency: 'USD', mode: 'sandbox', reference: 'order-1' });

export async function json(url: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

const createIntent = (base: string, keys: Keys) =>
  json(`${base}/api/v1/payment-intents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${keys.secret}`, 'content-type': 'application/json' },
    body: INTENT_BODY,
  });

/** Fresh intents and, for each, the confirm body the widget would send. */
export async function confirmBodies(base: string, keys: Keys, count: number): Promise<string[]> {
  const jwk = (await json(`${base}/embed/v1/jwks.json`)).keys[0] as JWK;
  const bodies: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const intents = await Promise.all(Array.from({ length: Math.min(50, count - i) }, () => createIntent(base, keys)));
    for (const intent of intents) {
      const card = await encryptCard(jwk, intent.id);
      bodies.push(JSON.stringify({ pk: keys.client, client_secret: intent.client_secret, mode: 'sandbox', card }));
    }
  }
  return bodies;
}

export interface Seeded {
  intent: unknown;
  transaction: unknown;
  list: unknown;
  outcome: unknown;
  intentId: string;
  transactionId: string;
}

/** A few paid intents, so that retrieve and list answer real, full records. */
export async function seed(base: string, keys: Keys): Promise<Seeded> {
  const auth = { authorization: `Bearer ${keys.secret}` };
  let outcome: any;
  for (const body of await confirmBodies(base, keys, 10)) {
    outcome = await json(`${base}/embed/v1/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
  }
  const transaction = await json(`${base}/api/v1/transactions/${outcome.transaction_id}`, { headers: auth });
  const intent = await json(`${base}/api/v1/payment-intents/${outcome.payment_intent}`, { headers: auth });
  const list = await json(`${base}/api/v1/transactions?limit=10`, { headers: auth });
  return { intent, transaction, list, outcome, intentId: intent.id, transactionId: transaction.id };
}

/** Runs every scenario against `base` (Obolus, or the baseline with the same paths). */
export async function runScenarios(
  name: string,
  base: string,
  keys: Keys,
  seeded: Seeded,
  plan: LoadPlan,
  confirmsOf: (count: number) => Promise<string[]>,
  only: readonly Scenario[] = SCENARIOS,
): Promise<Partial<Record<Scenario, Measured>>> {
  const headers = { authorization: `Bearer ${keys.secret}` };
  const label = (s: string) => `${name} ${s}`;
  const results: Partial<Record<Scenario, Measured>> = {};
  const runs = (scenario: Scenario) => only.includes(scenario);
  if (runs('create_intent'))
    results.create_intent = await measure(
      label('create_intent'),
      {
        url: `${base}/api/v1/payment-intents`,
        method: 'POST',
        body: INTENT_BODY,
        headers: { ...headers, 'content-type': 'application/json' },
      },
      plan,
    );
  if (runs('retrieve_transaction'))
    results.retrieve_transaction = await measure(
      label('retrieve_transaction (right after create)'),
      { url: `${base}/api/v1/transactions/${seeded.transactionId}`, headers },
      plan,
    );
  if (runs('retrieve_intent'))
    results.retrieve_intent = await measure(
      label('retrieve_intent'),
      { url: `${base}/api/v1/payment-intents/${seeded.intentId}`, headers },
      plan,
    );
  if (runs('list_transactions'))
    results.list_transactions = await measure(
      label('list_transactions'),
      { url: `${base}/api/v1/transactions?limit=10`, headers },
      plan,
    );
  if (!runs('confirm_sandbox')) return results;
  const bodies = await confirmsOf(Math.max(200, Math.round(plan.seconds * 200)));
  let next = 0;
  // Each shopper from a network of its own, as in a sale, named by the proxy the server trusts
  // (OBOLUS_TRUST_PROXY=loopback): from one address, 50 confirms at once would meet the
  // card-testing limit of 20 attempts in flight per network (decision 0200).
  const shopper = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  results.confirm_sandbox = await measure(
    label('confirm_sandbox (frictionless)'),
    {
      url: `${base}/embed/v1/confirm`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      amount: bodies.length,
    },
    plan,
    () => {
      const body = bodies[next];
      return body === undefined ? undefined : { body, headers: { 'x-forwarded-for': shopper(next++) } };
    },
  );
  return results;
}
