import { sql } from 'kysely';
import { expect } from 'vitest';
import { TX_STATUS } from '../../src/domain/transactions.ts';
import { AMOUNT, type Ledger } from './crash-workload.ts';
import type { TestAccount, TestServer } from './server.ts';
import type { Receiver } from './webhook-receiver.ts';

const get = async (url: string, key: string) => {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, json: (await res.json()) as any };
};

/** Pending attempts of the shop: what the sweeper or the reconciler still has to settle. */
export async function pendingAttemptsAcrossAccounts(t: TestServer, shop: TestAccount): Promise<number> {
  const row = await t.server.services.database.db
    .selectFrom('transactions')
    .select(sql<number>`count(*)`.as('n'))
    .where('account_id', '=', shop.id)
    .where('status', '=', TX_STATUS.pending)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Waits until no attempt of the shop is pending; answers how long that took (ms), or throws. */
export async function settled(t: TestServer, shop: TestAccount, withinMs: number): Promise<number> {
  const started = performance.now();
  while ((await pendingAttemptsAcrossAccounts(t, shop)) > 0) {
    if (performance.now() - started > withinMs) throw new Error(`attempts still pending after ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return performance.now() - started;
}

/** The names that occur more than once: a double. */
const doubled = <T>(rows: T[], key: (row: T) => string | null) =>
  [...Map.groupBy(rows, key)].filter(([, same]) => same.length > 1).map(([name]) => name);

/**
 * Every acknowledged intent, attempt and refund is there once, through the API of the
 * restarted server; nothing the shop sent once exists twice (by reference, per intent, per
 * transaction); no attempt is pending and no intent is `processing`.
 */
export async function checkLedger(t: TestServer, url: string, shop: TestAccount, ledger: Ledger): Promise<void> {
  await checkIntents(t, url, shop, ledger);
  const attempts = await checkAttempts(t, shop, ledger);
  await checkRefunds(t, url, shop, ledger, attempts);
}

async function checkIntents(t: TestServer, url: string, shop: TestAccount, ledger: Ledger): Promise<void> {
  for (const [reference, id] of ledger.intents) {
    const intent = await get(`${url}/api/v1/payment-intents/${id}`, shop.secretKey);
    expect(intent.status, `acknowledged intent ${id}`).toBe(200);
    expect(intent.json.reference).toBe(reference);
    const answered = ledger.confirms.get(id);
    if (answered) expect(intent.json.status, `intent ${id} after an acknowledged confirm`).toBe(answered.status);
  }
  const intents = await t.server.services.database.db
    .selectFrom('payment_intents')
    .select(['id', 'reference', 'status'])
    .where('account_id', '=', shop.id)
    .execute();
  expect(doubled(intents, (i) => i.reference)).toEqual([]);
  expect(intents.filter((i) => i.status === 'processing').map((i) => i.id)).toEqual([]);
}

/** One confirm per intent was sent: at most one attempt each, none pending, the acknowledged ones as answered. */
async function checkAttempts(t: TestServer, shop: TestAccount, ledger: Ledger) {
  const attempts = await t.server.services.database.db
    .selectFrom('transactions')
    .select(['id', 'payment_intent_id', 'status', 'refunded_amount', 'amount'])
    .where('account_id', '=', shop.id)
    .execute();
  expect(doubled(attempts, (a) => a.payment_intent_id)).toEqual([]);
  expect(attempts.filter((a) => a.status === TX_STATUS.pending).map((a) => a.id)).toEqual([]);
  const perIntent = Map.groupBy(attempts, (a) => a.payment_intent_id);
  for (const [intentId, answer] of ledger.confirms) {
    const ids = perIntent.get(intentId)?.map((a) => a.id);
    expect(ids, `acknowledged attempt of ${intentId}`).toEqual([answer.transaction]);
  }
  return attempts;
}

/** One refund per payment was asked for (retried with its key): never two, and the sums agree. */
async function checkRefunds(
  t: TestServer,
  url: string,
  shop: TestAccount,
  ledger: Ledger,
  attempts: { id: string; refunded_amount: number }[],
): Promise<void> {
  const refunds = await t.server.services.database.db
    .selectFrom('refunds')
    .select(['id', 'transaction_id', 'amount'])
    .where('account_id', '=', shop.id)
    .execute();
  expect(doubled(refunds, (r) => r.transaction_id)).toEqual([]);
  const perTransaction = Map.groupBy(refunds, (r) => r.transaction_id);
  for (const attempt of attempts) {
    const sum = (perTransaction.get(attempt.id) ?? []).reduce((total, r) => total + r.amount, 0);
    expect(attempt.refunded_amount, `refunded amount of ${attempt.id}`).toBe(sum);
    expect(sum).toBeLessThanOrEqual(AMOUNT);
  }
  for (const refund of ledger.refunds) {
    const record = await get(`${url}/api/v1/transactions/${refund.transaction}`, shop.secretKey);
    expect(record.status).toBe(200);
    const ids = (record.json.refunds as { id: string }[]).map((r) => r.id);
    expect(
      ids.filter((id) => id === refund.id),
      `acknowledged refund ${refund.id}`,
    ).toHaveLength(1);
  }
}

/** Every event of the shop, from the events API of the restarted server. */
export async function eventIds(url: string, shop: TestAccount): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  for (;;) {
    const query = `limit=100${after ? `&starting_after=${after}` : ''}`;
    const page = await get(`${url}/api/v1/events?${query}`, shop.secretKey);
    expect(page.status).toBe(200);
    ids.push(...(page.json.data as { id: string }[]).map((e) => e.id));
    if (!page.json.has_more) return ids;
    after = ids.at(-1);
  }
}

/**
 * Every event reaches the receiver at least once (same webhook-id when twice); answers the
 * number of events and of extra deliveries.
 */
export async function checkDelivered(
  url: string,
  shop: TestAccount,
  receiver: Receiver,
  withinMs: number,
): Promise<{ events: number; duplicates: number }> {
  const events = await eventIds(url, shop);
  const mine = new Set(events);
  const received = () => receiver.received.map((w) => w.headers['webhook-id'] ?? '').filter((id) => mine.has(id));
  const end = Date.now() + withinMs;
  while (new Set(received()).size < mine.size && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  const got = new Set(received());
  expect(
    events.filter((id) => !got.has(id)),
    'events never delivered',
  ).toEqual([]);
  for (const webhook of receiver.received.filter((w) => mine.has(w.headers['webhook-id'] ?? ''))) {
    expect(webhook.json.id).toBe(webhook.headers['webhook-id']);
  }
  return { events: mine.size, duplicates: received().length - mine.size };
}
