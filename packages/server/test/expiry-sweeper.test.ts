import { describe, expect, it } from 'vitest';
import type { PaymentIntent } from '../../node/src/index.ts';
import { DAY, ManualClock, MINUTE } from '../src/clock.ts';
import { expireDueIntents } from '../src/domain/payments/expire.ts';
import { TX_STATUS } from '../src/domain/transactions.ts';
import { createLogger } from '../src/logger.ts';
import { paymentDeps } from '../src/services.ts';
import { startExpirySweeper } from '../src/workers/expiry-sweeper.ts';
import { ENGINES } from './support/engines.ts';
import { createSettledTransaction } from './support/transactions.ts';
import { useTestServer } from './support/use-test-server.ts';

describe.each(ENGINES)('expiry sweeper (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 5));
  const { t, shop } = useTestServer(engine, { clock, config: { webhooksPollMs: 0 }, withAccount: true });

  const status = async (id: string) =>
    (
      await t.server.services.database.db
        .selectFrom('payment_intents')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).status;
  const createIntent = async () =>
    (
      await t.call<PaymentIntent>('POST', '/api/v1/payment-intents', {
        key: shop.secretKey,
        body: { amount: 1000, currency: 'USD', mode: 'sandbox' },
      })
    ).json.id;

  it('a full page of intents stuck in processing does not stop later intents from expiring', async () => {
    // Live attempts of unknown outcome, with no connector to ask: they stay processing.
    const stuck = [];
    for (let i = 0; i < 4; i++) {
      stuck.push((await createSettledTransaction(t, shop, { mode: 'live', status: TX_STATUS.pending })).intentId);
      clock.advance(1000);
    }
    const later = [await createIntent(), await createIntent(), await createIntent()];
    clock.advance(7 * DAY + MINUTE);

    // Pages of 2: the first two pages hold only stuck intents.
    const expired = await expireDueIntents(paymentDeps(t.server.services), 2);
    expect(expired.map((i) => i.id).sort()).toEqual([...later].sort());
    for (const id of later) expect(await status(id)).toBe('expired');
    for (const id of stuck) expect(await status(id)).toBe('processing');
  });

  it('settles sandbox attempts a stopped process left pending, then lets their intents expire', async () => {
    const approved = await createSettledTransaction(t, shop, { status: TX_STATUS.pending });
    const declined = await createSettledTransaction(t, shop, {
      status: TX_STATUS.pending,
      cardNumber: '4000000000000002',
    });
    const challenge = await createSettledTransaction(t, shop, {
      status: TX_STATUS.pending,
      cardNumber: '4000000000003220',
    });
    const sweeper = startExpirySweeper(t.server.services, createLogger('silent'), 3_600_000);
    try {
      // Within its first minute an attempt may still be with the simulator: left alone.
      expect((await sweeper.runOnce()).settled).toBe(0);
      expect(await status(approved.intentId)).toBe('processing');

      clock.advance(MINUTE + 1);
      expect((await sweeper.runOnce()).settled).toBe(3);
      expect(await status(approved.intentId)).toBe('succeeded');
      expect(await status(declined.intentId)).toBe('failed');
      expect(await status(challenge.intentId)).toBe('failed');
      const tx = await t.call('GET', `/api/v1/transactions/${approved.id}`, { key: shop.secretKey });
      expect(tx.json.status).toBe(20);

      // The failed ones can now expire like any other.
      clock.advance(7 * DAY);
      await sweeper.runOnce();
      expect(await status(declined.intentId)).toBe('expired');
      expect(await status(challenge.intentId)).toBe('expired');
      expect(await status(approved.intentId)).toBe('succeeded');
    } finally {
      await sweeper.stop();
    }
  });
});
