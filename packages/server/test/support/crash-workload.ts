import type { JWK } from 'jose';
import type { SecondProcess } from './second-process.ts';
import type { TestAccount, TestServer } from './server.ts';
import { card, encryptCard } from './widget-client.ts';

/** What the shop was told: only these are owed after a crash. */
export interface Ledger {
  /** reference -> intent id, for every create answered 200. */
  intents: Map<string, string>;
  /** intent id -> the confirm's answer, for every confirm answered 200. */
  confirms: Map<string, { status: string; transaction: string }>;
  /** Every refund answered 200. */
  refunds: { id: string; transaction: string; amount: number }[];
  /** Keyed requests whose answer was lost with the process: retried after the restart with the same key. */
  lost: { path: string; key: string; body: unknown; reference?: string }[];
  /** Requests of any kind that got no answer. */
  unanswered: number;
  orders: number;
}

export const newLedger = (): Ledger => ({
  intents: new Map(),
  confirms: new Map(),
  refunds: [],
  lost: [],
  unanswered: 0,
  orders: 0,
});

export const AMOUNT = 2000;
export const REFUND = 500;

interface Answer {
  status: number;
  json: any;
}

/** A POST to the victim, or null when the connection died (the process is gone). */
async function post(url: string, key: string | null, body: unknown, idempotencyKey?: string): Promise<Answer | null> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  try {
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  } catch {
    return null;
  }
}

/**
 * Orders against `victim` from `workers` clients at once, each one: create an intent (keyed),
 * pay it with the widget's call, refund part of it (keyed). Stops when the process dies, or
 * after `maxOrders`. Records what was acknowledged.
 */
export async function runOrders(
  t: TestServer,
  victim: SecondProcess,
  shop: TestAccount,
  ledger: Ledger,
  options: { maxOrders: number; workers: number; tag: string; mode?: 'sandbox' | 'live' },
): Promise<void> {
  const mode = options.mode ?? 'sandbox';
  const jwk = ((await t.call('GET', '/embed/v1/jwks.json')).json as { keys: JWK[] }).keys[0]!;
  const alive = () => victim.child.exitCode === null && victim.child.signalCode === null;
  const order = async (n: number): Promise<boolean> => {
    ledger.orders++;
    const reference = `${options.tag}-${n}`;
    const createBody = { amount: AMOUNT, currency: 'USD', mode, reference };
    const createKey = `create-${reference}`;
    const created = await post(`${victim.url}/api/v1/payment-intents`, shop.secretKey, createBody, createKey);
    if (!created) {
      ledger.unanswered++;
      ledger.lost.push({ path: '/api/v1/payment-intents', key: createKey, body: createBody, reference });
      return false;
    }
    if (created.status !== 200) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.json)}`);
    const intent = created.json as { id: string; client_secret: string };
    ledger.intents.set(reference, intent.id);
    const jwe = await encryptCard(t, intent.client_secret, card('4242424242424242'), { jwk });
    const paid = await post(`${victim.url}/embed/v1/confirm`, null, {
      pk: shop.clientKey,
      client_secret: intent.client_secret,
      mode,
      card: jwe,
    });
    if (!paid) {
      ledger.unanswered++;
      return false;
    }
    if (paid.status !== 200) throw new Error(`confirm answered ${paid.status}: ${JSON.stringify(paid.json)}`);
    ledger.confirms.set(intent.id, { status: paid.json.status, transaction: paid.json.transaction_id });
    if (paid.json.status !== 'succeeded') return true;
    const path = `/api/v1/transactions/${paid.json.transaction_id}/refunds`;
    const refundKey = `refund-${reference}`;
    const refunded = await post(`${victim.url}${path}`, shop.secretKey, { amount: REFUND }, refundKey);
    if (!refunded) {
      ledger.unanswered++;
      ledger.lost.push({ path, key: refundKey, body: { amount: REFUND } });
      return false;
    }
    if (refunded.status !== 200)
      throw new Error(`refund answered ${refunded.status}: ${JSON.stringify(refunded.json)}`);
    ledger.refunds.push({ id: refunded.json.id, transaction: refunded.json.transaction, amount: refunded.json.amount });
    return true;
  };
  let next = 0;
  const client = async () => {
    while (alive() && next < options.maxOrders) {
      if (!(await order(next++))) return;
    }
  };
  await Promise.all(Array.from({ length: options.workers }, client));
}

/**
 * After the restart: each keyed request whose answer was lost is sent again with its key.
 * A stored answer is replayed, a claim left by the dead process answers 409 (not owed), a
 * claim that died uncommitted starts afresh. Answers how many came back 200.
 */
export async function retryLost(url: string, shop: TestAccount, ledger: Ledger): Promise<number> {
  let answered = 0;
  for (const request of ledger.lost) {
    const answer = await post(`${url}${request.path}`, shop.secretKey, request.body, request.key);
    if (!answer) throw new Error(`the restarted server did not answer ${request.path}`);
    // The transactions surface answers errors as {"error": "<message>"} (spec §4.2), the intents API with a code.
    const inUse =
      answer.json?.error?.code === 'idempotency_key_in_use' || /Idempotency-Key is still/.test(answer.json?.error);
    if (answer.status === 409 && inUse) continue;
    if (answer.status !== 200) throw new Error(`retry answered ${answer.status}: ${JSON.stringify(answer.json)}`);
    answered++;
    if (request.reference) ledger.intents.set(request.reference, answer.json.id);
    else ledger.refunds.push({ id: answer.json.id, transaction: answer.json.transaction, amount: answer.json.amount });
  }
  return answered;
}
