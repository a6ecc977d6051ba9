import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { SANDBOX_DISPUTE_AFTER_MS } from '../src/connectors/sandbox/sandbox.ts';
import { recordChargeback } from '../src/domain/chargebacks.ts';
import type { AccountId } from '../src/ids.ts';
import { createLogger } from '../src/logger.ts';
import { startDisputeSimulator } from '../src/workers/dispute-simulator.ts';
import { ENGINES } from './support/engines.ts';
import { createSettledTransaction, type SettledOptions } from './support/transactions.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

const CHARGEBACK_CARD = '4000000000000259';

describe.each(ENGINES)('chargebacks (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 5, 10, 0, 0, 0));
  const { t, shop } = useTestServer(engine, { clock, withAccount: true });
  const retrieve = async (id: string, account = shop) =>
    (await t.call('GET', `/api/v1/transactions/${id}`, { key: account.secretKey })).json;
  const simulate = (id: string, account = shop) =>
    t.call('POST', `/api/v1/sandbox/transactions/${id}/chargeback`, { key: account.secretKey });
  const paid = async (options: SettledOptions = {}) => (await createSettledTransaction(t, shop, options)).id;
  const updates = async (id: string) =>
    (await t.server.services.repos.eventFeed.forObject(shop.id, id)).filter((e) => e.type === 'transaction.updated');

  describe('POST /api/v1/sandbox/transactions/{id}/chargeback', () => {
    it('records a chargeback, visible through retrieval, with its event', async () => {
      const id = await paid({ amount: 2000 });
      clock.advance(7);
      const res = await simulate(id);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ id, chargeback: true, status: 50, statustext: 'Chargeback', amountpaid: 20 });
      expect(res.json.updated).toBe(clock.now() / 1000);
      expect(await retrieve(id)).toEqual(res.json);
      const events = await updates(id);
      expect(events).toHaveLength(1);
      expect(events[0]!.object).toEqual(res.json);
    });

    it('a second time is a 409, and no second event', async () => {
      const id = await paid();
      await simulate(id);
      const again = await simulate(id);
      expect(again.status).toBe(409);
      expect(again.json).toEqual({ error: 'This transaction already has a chargeback.' });
      expect(await updates(id)).toHaveLength(1);
    });

    it('refused on a live transaction', async () => {
      const id = await paid({ mode: 'live' });
      const res = await simulate(id);
      expect(res.status).toBe(400);
      expect(res.json.error).toMatch(/sandbox transactions only/);
      expect(await retrieve(id)).toMatchObject({ chargeback: false, status: 20 });
    });

    it.each([
      [10, 'Pending'],
      [30, 'Declined'],
      [31, 'Failed'],
    ] as const)('refused when nothing was captured (status %i)', async (status, text) => {
      const id = await paid({ status });
      const res = await simulate(id);
      expect(res.status).toBe(409);
      expect(res.json).toEqual({
        error: `Only a transaction whose money was captured can be charged back; this one is ${text}.`,
      });
    });

    it('allowed on a partially refunded transaction: the refunds stay on the record', async () => {
      const id = await paid({ amount: 1000 });
      const refunded = await t.call('POST', `/api/v1/transactions/${id}/refunds`, {
        key: shop.secretKey,
        body: { amount: 300 },
      });
      const res = await simulate(id);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ status: 50, chargeback: true, amount_refunded: 300 });
      expect(res.json.refunds).toEqual(refunded.json.transaction_record.refunds);
    });

    it('allowed on a fully refunded transaction (decision 0012)', async () => {
      const id = await paid({ amount: 1000 });
      await t.call('POST', `/api/v1/transactions/${id}/refunds`, { key: shop.secretKey });
      const res = await simulate(id);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ status: 50, chargeback: true, amount_refunded: 1000 });
    });

    it("another account's transaction is the 404 of a missing one", async () => {
      const other = await t.newAccount();
      const { id: foreign } = await createSettledTransaction(t, other);
      const a = await simulate(foreign);
      const b = await simulate('0'.repeat(24));
      expect(a.status).toBe(404);
      expect(a.text).toBe(b.text);
      expect(await retrieve(foreign, other)).toMatchObject({ chargeback: false });
    });

    it('takes no parameters, and needs the secret key', async () => {
      const id = await paid();
      const res = await t.call('POST', `/api/v1/sandbox/transactions/${id}/chargeback`, {
        key: shop.secretKey,
        body: { amount: 5 },
      });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: 'Received unknown parameter: amount.' });
      expect((await t.call('POST', `/api/v1/sandbox/transactions/${id}/chargeback`, {})).status).toBe(401);
      expect(await retrieve(id)).toMatchObject({ chargeback: false });
    });

    it('10 at once: one records it, the others get 409', async () => {
      const id = await paid();
      const results = await Promise.all(Array.from({ length: 10 }, () => simulate(id)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409)).toHaveLength(9);
      expect(await updates(id)).toHaveLength(1);
    });
  });

  describe('the sandbox chargeback card, through the dispute simulator', () => {
    const logger = createLogger('silent');
    const disputeCard = async (options: SettledOptions = {}) =>
      paid({ cardNumber: CHARGEBACK_CARD, disputeAt: clock.now() + SANDBOX_DISPUTE_AFTER_MS, ...options });

    it('nothing before dispute_at; the chargeback from its very millisecond on', async () => {
      const simulator = startDisputeSimulator(t.server.services, logger, 60_000);
      try {
        const id = await disputeCard();
        clock.advance(SANDBOX_DISPUTE_AFTER_MS - 1);
        await simulator.runOnce();
        expect(await retrieve(id)).toMatchObject({ chargeback: false, status: 20 });
        clock.advance(1);
        await simulator.runOnce();
        expect(await retrieve(id)).toMatchObject({ chargeback: true, status: 50, statustext: 'Chargeback' });
        expect(await updates(id)).toHaveLength(1);
      } finally {
        await simulator.stop();
      }
    });

    it('end to end: paid with 4000000000000259 in the widget, settled, then charged back', async () => {
      const simulator = startDisputeSimulator(t.server.services, logger, 60_000);
      try {
        const intent = await createIntent(t, shop.secretKey, { amount: 4200 });
        const paidNow = await confirm(t, shop.clientKey, intent.client_secret, card(CHARGEBACK_CARD));
        expect(paidNow.json).toMatchObject({ success: true, status: 'succeeded' });
        const id = paidNow.json.transaction_id as string;
        expect(await retrieve(id)).toMatchObject({ status: 20, chargeback: false, amountpaid: 42 });
        clock.advance(SANDBOX_DISPUTE_AFTER_MS - 1);
        await simulator.runOnce();
        expect(await retrieve(id)).toMatchObject({ status: 20, chargeback: false });
        clock.advance(1);
        await simulator.runOnce();
        expect(await retrieve(id)).toMatchObject({ status: 50, statustext: 'Chargeback', chargeback: true });
      } finally {
        await simulator.stop();
      }
    });

    it("the server's own worker records it without being asked", async () => {
      const id = await disputeCard();
      clock.advance(SANDBOX_DISPUTE_AFTER_MS);
      const deadline = Date.now() + 10_000;
      let record = await retrieve(id);
      while (!record.chargeback && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        record = await retrieve(id);
      }
      expect(record).toMatchObject({ chargeback: true, status: 50 });
    });

    it('leaves live transactions, uncaptured ones and other cards alone', async () => {
      const simulator = startDisputeSimulator(t.server.services, logger, 60_000);
      try {
        const live = await disputeCard({ mode: 'live' });
        const declined = await disputeCard({ status: 30 });
        const plain = await paid();
        clock.advance(SANDBOX_DISPUTE_AFTER_MS + 1);
        await simulator.runOnce();
        for (const id of [live, declined, plain]) expect(await retrieve(id)).toMatchObject({ chargeback: false });
      } finally {
        await simulator.stop();
      }
    });

    it('several processes running it record each dispute once', async () => {
      const simulators = Array.from({ length: 4 }, () => startDisputeSimulator(t.server.services, logger, 60_000));
      try {
        const ids = await Promise.all(Array.from({ length: 5 }, () => disputeCard()));
        clock.advance(SANDBOX_DISPUTE_AFTER_MS);
        await Promise.all(simulators.map((s) => s.runOnce()));
        for (const id of ids) {
          expect(await retrieve(id)).toMatchObject({ chargeback: true });
          expect(await updates(id)).toHaveLength(1);
        }
      } finally {
        await Promise.all(simulators.map((s) => s.stop()));
      }
    });
  });

  it("recordChargeback, a live connector's dispute notice, records once however often it comes", async () => {
    const id = await paid({ mode: 'live' });
    const { services } = t.server;
    const notice = { accountId: shop.id as AccountId, transactionId: id };
    const first = await recordChargeback(services.repos.chargebacks, services.clock, notice);
    const second = await recordChargeback(services.repos.chargebacks, services.clock, notice);
    expect(first?.transaction).toMatchObject({ id, chargeback: true, status: 50 });
    expect(second).toBeNull();
    expect(await retrieve(id)).toMatchObject({ chargeback: true, status: 50, mode: 'live' });
    expect(await updates(id)).toHaveLength(1);
    // Scoped by account: a notice naming the wrong account changes nothing.
    const other = await t.newAccount();
    const id2 = await paid();
    expect(
      await recordChargeback(services.repos.chargebacks, services.clock, {
        accountId: other.id as AccountId,
        transactionId: id2,
      }),
    ).toBeNull();
    expect(await retrieve(id2)).toMatchObject({ chargeback: false });
  });
});
