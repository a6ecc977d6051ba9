import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import type { EventDraft } from '../src/domain/events.ts';
import { appendEvents } from '../src/store/repos/events.ts';
import { WebhookDispatcher } from '../src/workers/webhooks/dispatcher.ts';
import { ENGINES } from './support/engines.ts';
import { WEBHOOKS_BY_HAND } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';
import { useReceiver } from './support/webhook-receiver.ts';

/**
 * One pass of the dispatcher sends every due delivery, also those the per-endpoint cap held
 * back until a send finished (found by model-based.test.ts on PostgreSQL: when the last
 * sends finished while the pass was claiming, the claim did not see the slots they freed and
 * the pass ended with a due delivery never attempted).
 */
describe.each(ENGINES)('a dispatcher pass leaves nothing due behind (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 4));
  const receiver = useReceiver();
  const { t } = useTestServer(engine, { clock, config: WEBHOOKS_BY_HAND });

  it('60 events to one endpoint allowed one send at a time: one runOnce delivers all 60', async () => {
    const shop = await t.newAccount();
    const endpoint = await t.call('POST', '/api/v1/webhook-endpoints', {
      key: shop.secretKey,
      body: { url: receiver.url, enabled_events: ['*'], mode: 'sandbox' },
    });
    expect(endpoint.status).toBe(200);
    const drafts: EventDraft[] = Array.from({ length: 60 }, (_, i) => ({
      type: 'transaction.updated',
      accountId: shop.id,
      mode: 'sandbox',
      objectType: 'transaction',
      objectId: `obj_${i}`,
      object: { id: `obj_${i}`, object: 'transaction' },
    }));
    await appendEvents(t.server.services.database.db, drafts, clock.now());
    const dispatcher = new WebhookDispatcher(t.server.services, { caps: { perEndpoint: 1, perAccount: 16 } });
    const report = await dispatcher.runOnce();
    expect(report.attempts.filter((a) => a.succeeded)).toHaveLength(60);
    expect(new Set(receiver.received.map((w) => w.json.data.object.id)).size).toBe(60);
  });
});
