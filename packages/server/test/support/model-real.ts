import type fc from 'fast-check';
import type { JWK } from 'jose';
import { expect } from 'vitest';
import type { ManualClock } from '../../src/clock.ts';
import { recordDueSandboxDisputes } from '../../src/domain/chargebacks.ts';
import { failAbandonedChallenges } from '../../src/domain/payments/abandoned-challenges.ts';
import { expireDueIntents, settleInterruptedSandboxAttempts } from '../../src/domain/payments/expire.ts';
import { paymentDeps } from '../../src/services.ts';
import type { WebhookDispatcher } from '../../src/workers/webhooks/dispatcher.ts';
import type { Answer, Model } from './payment-model.ts';
import * as model from './payment-model.ts';
import type { TestAccount, TestServer } from './server.ts';
import type { Receiver } from './webhook-receiver.ts';

/** The real side of model-based.test.ts: requests, time, and the comparisons with the model. */

/** The real system of one run: the server, this run's shop, the test's clock and endpoint. */
export interface Real {
  t: TestServer;
  shop: TestAccount;
  clock: ManualClock;
  receiver: Receiver;
  dispatcher: WebhookDispatcher;
  jwk: JWK;
  s: fc.Scheduler;
  /** What the test's webhook dispatcher logged at warn and above. */
  dispatcherErrors: string[];
}

/** Appends to the list under `key`, creating it. */
export function push<T>(lists: Record<string, T[]>, key: string, item: T): void {
  lists[key] = [...(lists[key] ?? []), item];
}

export async function call(real: Real, method: string, path: string, body?: unknown, key?: string): Promise<Answer> {
  const res = await real.t.call(method, path, { key: key ?? real.shop.secretKey, ...(body ? { body } : {}) });
  return { status: res.status, json: res.json };
}

/** Moves the test's clock and the model's, then makes the background workers' passes. */
export async function passTime(m: Model, real: Real, ms: number): Promise<void> {
  real.clock.advance(ms);
  model.advance(m, ms);
  // The passes the background workers make (they may run too; each change is a compare-and-set).
  const deps = paymentDeps(real.t.server.services);
  await settleInterruptedSandboxAttempts(deps);
  await failAbandonedChallenges(deps);
  await expireDueIntents(deps);
  await recordDueSandboxDisputes(real.t.server.services.repos.chargebacks, real.clock, 1000);
}

/**
 * Sends the due webhooks (one dispatcher pass, and the retries of failed attempts at their
 * time), then checks that every event of the model arrived, once per event id, in each
 * object's order. Answers how many attempts were retried.
 */
export async function deliverAndCheck(m: Model, real: Real): Promise<number> {
  let retried = 0;
  let report = await real.dispatcher.runOnce();
  const failures = report.attempts.filter((a) => !a.succeeded);
  // A failed attempt is retried on its schedule: time passes for the model too, and the
  // retry must bring the event (at least once, not at once). A failure names the attempts,
  // the dispatcher's errors and the stored events and deliveries of the run's account.
  for (let retry = 0; retry < 3; retry++) {
    const due = report.attempts.filter((a) => !a.succeeded && a.accountId === real.shop.id && a.nextAttemptAt);
    if (due.length === 0) break;
    retried += due.length;
    await passTime(m, real, Math.max(0, Math.max(...due.map((a) => a.nextAttemptAt!)) - real.clock.now()));
    report = await real.dispatcher.runOnce();
    failures.push(...report.attempts.filter((a) => !a.succeeded));
  }
  // Every event the model expects arrived, once per event id, in each object's order.
  const byId = new Map<string, any>();
  for (const w of real.receiver.received) byId.set(w.headers['webhook-id']!, w.json);
  const got: Record<string, { seq: number; type: string }[]> = {};
  for (const event of byId.values()) {
    const id = event.data.object.id as string;
    if (m.events[id]) push(got, id, { seq: event.sequence, type: event.type });
  }
  const delivered = Object.fromEntries(
    Object.keys(m.events).map((id) => [id, (got[id] ?? []).sort((x, y) => x.seq - y.seq).map((e) => e.type)]),
  );
  const db = real.t.server.services.database.db;
  const rows = JSON.stringify({
    now: real.clock.now(),
    events: await db
      .selectFrom('events')
      .select(['id', 'type', 'created_at', 'fanned_out_at', 'fanout_locked_until'])
      .where('account_id', '=', real.shop.id)
      .execute(),
    deliveries: await db.selectFrom('webhook_deliveries').selectAll().where('account_id', '=', real.shop.id).execute(),
  });
  const why = `failed attempts: ${JSON.stringify(failures)}; dispatcher errors: ${real.dispatcherErrors.join('')}; ${rows}`;
  expect(delivered, why).toEqual(m.events);
  return retried;
}

const modelled = (e: { data: { object: { object: string } } }) =>
  e.data.object.object === 'payment_intent' || e.data.object.object === 'transaction';

/** The merchant API and the model hold the same intents, transactions and events. */
export async function agree(m: Model, real: Real): Promise<void> {
  const intents = (await call(real, 'GET', '/api/v1/payment-intents?limit=100')).json.data;
  expect(
    Object.fromEntries(
      intents.map((i: any) => [i.id, { status: i.status, amount: i.amount, lastTx: i.last_transaction }]),
    ),
  ).toEqual(Object.fromEntries(m.intents.map((i) => [i.id, { status: i.status, amount: i.amount, lastTx: i.lastTx }])));
  const txs = (await call(real, 'GET', '/api/v1/transactions?limit=100')).json.data;
  const view = (tx: any) => ({
    intent: tx.payment_intent,
    status: tx.status,
    amount_refunded: tx.amount_refunded,
    // Oldest first, ties (one instant of the test's clock) in id order: compared as a multiset.
    refunds: tx.refunds.map((r: any) => `${r.amount} ${r.status}`).sort(),
    chargeback: tx.chargeback,
  });
  expect(Object.fromEntries(txs.map((tx: any) => [tx.id, view(tx)]))).toEqual(
    Object.fromEntries(
      m.txs.map((tx) => [
        tx.id,
        {
          intent: tx.intentId,
          status: tx.status,
          amount_refunded: tx.refunded,
          refunds: tx.refunds.map((a) => `${a} succeeded`).sort(),
          chargeback: tx.chargeback,
        },
      ]),
    ),
  );
  const events: Record<string, { seq: number; type: string }[]> = {};
  let after = '';
  for (;;) {
    const page = (await call(real, 'GET', `/api/v1/events?limit=100${after}`)).json;
    // The model follows intents and transactions; refunds' and disputes' own events (refund.*, dispute.*) have their tests.
    for (const e of page.data.filter(modelled)) push(events, e.data.object.id, { seq: e.sequence, type: e.type });
    if (!page.has_more) break;
    after = `&starting_after=${page.data.at(-1).id}`;
  }
  const ordered = Object.fromEntries(
    Object.entries(events).map(([id, list]) => [id, list.sort((x, y) => x.seq - y.seq).map((e) => e.type)]),
  );
  expect(ordered).toEqual(m.events);
}
