import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { describe, expect, it } from 'vitest';
import { DAY, ManualClock } from '../src/clock.ts';
import { dashboardSummary } from '../src/domain/dashboard/summary.ts';
import { migrateToLatest } from '../src/store/database.ts';
import { migrationProvider } from '../src/store/migrations/index.ts';
import { ENGINES } from './support/engines.ts';
import { createSettledTransaction } from './support/transactions.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

// The daily totals kept by the database with every transaction (migration 0160, decision 0261)
// against the same sums computed from the transactions themselves, on both engines.
describe.each(ENGINES)('daily totals (%s)', (engine) => {
  // 23:59 UTC: a payment a minute later belongs to the next day.
  const clock = new ManualClock(Date.UTC(2026, 10, 20, 23, 59, 0, 0));
  const { t, shop } = useTestServer(engine, { clock, withAccount: true });
  const call = (method: string, path: string, body?: object) =>
    t.call(method, path, { key: shop.secretKey, ...(body === undefined ? {} : { body }) });
  const pay = async (amount: number, number = '4242424242424242', over: object = {}) => {
    const intent = await createIntent(t, shop.secretKey, { amount, ...over });
    return (await confirm(t, shop.clientKey, intent.client_secret, card(number))).json;
  };

  /** The totals as the store keeps them, per day (ms), every mode. */
  async function kept(account = shop) {
    const out: Record<string, unknown> = {};
    for (const mode of ['sandbox', 'live'] as const) {
      for (const d of await t.server.services.repos.dashboardStats.totalsPerDay(account.id, mode, 0)) {
        out[`${mode} ${new Date(d.day).toISOString().slice(0, 10)}`] = {
          settled: [d.settledCount, d.settledAmount],
          unpaid: d.unpaidCount,
          refunded: d.refundedAmount,
          chargebacks: [d.chargebackCount, d.chargebackAmount],
        };
      }
    }
    return out;
  }

  /** The same totals summed from the transactions, as the dashboard computed them before 0160. */
  async function summed(account = shop) {
    const { db } = t.server.services.database;
    const rows = await db
      .selectFrom('transactions')
      .select(['mode', 'status', 'amount', 'refunded_amount', 'created_at'])
      .where('account_id', '=', account.id)
      .execute();
    const out: Record<string, { settled: number[]; unpaid: number; refunded: number; chargebacks: number[] }> = {};
    for (const row of rows) {
      if (row.status === 10) continue;
      const key = `${row.mode} ${new Date(Math.floor(Number(row.created_at) / DAY) * DAY).toISOString().slice(0, 10)}`;
      out[key] ??= { settled: [0, 0], unpaid: 0, refunded: 0, chargebacks: [0, 0] };
      const day = out[key];
      const captured = [20, 40, 41, 50].includes(row.status);
      if (captured) day.settled = [(day.settled[0] ?? 0) + 1, (day.settled[1] ?? 0) + Number(row.amount)];
      else day.unpaid++;
      day.refunded += Number(row.refunded_amount);
      if (row.status === 50)
        day.chargebacks = [(day.chargebacks[0] ?? 0) + 1, (day.chargebacks[1] ?? 0) + Number(row.amount)];
    }
    return out;
  }

  it('follow settlements, declines, partial and full refunds, chargebacks and captures, each on the day the payment was made', async () => {
    const first = await pay(1000);
    const second = await pay(2500);
    const declined = await pay(700, '4000000000000002');
    expect(declined.success).toBe(false);
    const manual = await pay(5000, '4242424242424242', { capture_method: 'manual' });
    expect(manual.status).toBe('requires_capture');
    // Into the next UTC day.
    clock.advance(2 * 60_000);
    const third = await pay(4000);
    const live = await createSettledTransaction(t, shop, { amount: 900, mode: 'live' });
    expect(await kept()).toEqual(await summed());

    // Refunds and chargebacks count on the day of the payment they concern.
    expect((await call('POST', `/api/v1/transactions/${first.transaction_id}/refunds`, { amount: 300 })).status).toBe(
      200,
    );
    expect((await call('POST', `/api/v1/transactions/${first.transaction_id}/refunds`, { amount: 200 })).status).toBe(
      200,
    );
    expect((await call('POST', `/api/v1/transactions/${second.transaction_id}/refunds`, {})).status).toBe(200);
    expect((await call('POST', `/api/v1/sandbox/transactions/${third.transaction_id}/chargeback`)).status).toBe(200);
    expect((await call('POST', `/api/v1/sandbox/transactions/${first.transaction_id}/chargeback`)).status).toBe(200);
    // An authorization captured in part, a day later.
    const captured = await call('POST', `/api/v1/payment-intents/${manual.payment_intent}/capture`, {
      amount_to_capture: 3000,
    });
    expect(captured.status).toBe(200);
    await t.server.services.database.db
      .updateTable('transactions')
      .set({ status: 20 })
      .where('id', '=', live.id)
      .execute();

    const totals = await kept();
    expect(totals).toEqual(await summed());
    // Written out once, so that a wrong sum on both sides cannot pass.
    expect(totals).toEqual({
      'sandbox 2026-11-20': {
        settled: [3, 1000 + 2500 + 3000],
        unpaid: 1,
        refunded: 500 + 2500,
        chargebacks: [1, 1000],
      },
      'sandbox 2026-11-21': { settled: [1, 4000], unpaid: 0, refunded: 0, chargebacks: [1, 4000] },
      'live 2026-11-21': { settled: [1, 900], unpaid: 0, refunded: 0, chargebacks: [0, 0] },
    });
  });

  it('the home summary reads them: volume, count and success rate as summed from the transactions', async () => {
    const summary = await dashboardSummary(
      t.server.services.repos.dashboardStats,
      clock,
      (await t.server.services.repos.accounts.find(shop.id))!,
      'sandbox',
    );
    expect(summary.totalAmount).toBe(1000 + 2500 + 3000 + 4000);
    expect(summary.totalCount).toBe(4);
    expect(summary.successRate).toBe(4 / 5);
    expect(summary.days.at(-1)).toEqual({ day: Date.UTC(2026, 10, 21), amount: 4000, count: 1 });
    expect(summary.days.at(-2)).toEqual({ day: Date.UTC(2026, 10, 20), amount: 6500, count: 3 });
  });

  it('stay exact under confirms, refunds and chargebacks fired at once', async () => {
    const other = await t.newAccount();
    // Past the minute of the payments above: each confirm holds one of the network's 20 card-testing
    // slots a minute while it runs (decision 0200), so 16 at once stay under the limit.
    clock.advance(2 * 60_000);
    const intents = await Promise.all(
      Array.from({ length: 16 }, (_, i) => createIntent(t, other.secretKey, { amount: 100 + i })),
    );
    const paid = await Promise.all(
      intents.map((intent, i) =>
        confirm(t, other.clientKey, intent.client_secret, card(i % 8 === 7 ? '4000000000000002' : '4242424242424242')),
      ),
    );
    const ids = paid.map((p) => p.json.transaction_id as string).filter((_, i) => i % 8 !== 7);
    await Promise.all(
      ids.flatMap((id, i) => [
        t.call('POST', `/api/v1/transactions/${id}/refunds`, { key: other.secretKey, body: { amount: 10 + (i % 3) } }),
        t.call('POST', `/api/v1/transactions/${id}/refunds`, { key: other.secretKey, body: { amount: 5 } }),
        ...(i % 4 === 0
          ? [t.call('POST', `/api/v1/sandbox/transactions/${id}/chargeback`, { key: other.secretKey })]
          : []),
      ]),
    );
    const totals = await kept(other);
    expect(totals).toEqual(await summed(other));
    const day = Object.values(totals)[0] as { settled: number[]; unpaid: number };
    expect(paid.map((p) => p.json.success)).toEqual(intents.map((_, i) => i % 8 !== 7));
    expect(day.settled[0]).toBe(14);
    expect(day.unpaid).toBe(2);
  });

  it('are rebuilt from the transactions by the migration, and dropped by its down', async () => {
    const before = await kept();
    const { db } = t.server.services.database;
    const names = Object.keys(await migrationProvider.getMigrations()).sort();
    const migrator = new Migrator({ db, provider: migrationProvider });
    const down = await migrator.migrateTo(names[names.indexOf('0160-daily-totals') - 1] as string);
    expect(down.error).toBeUndefined();
    // Without the triggers, a change leaves nothing behind; the migration's backfill counts it.
    const declined = await createSettledTransaction(t, shop, { amount: 300, status: 30 });
    await migrateToLatest(db);
    const expected = await summed();
    expect(await kept()).toEqual(expected);
    expect(expected).not.toEqual(before);
    expect(declined.transaction.status).toBe(30);
    const rows = await sql<{ n: number }>`select count(*) as n from daily_totals`.execute(db);
    expect(Number(rows.rows[0]?.n)).toBeGreaterThan(0);
  });
});
