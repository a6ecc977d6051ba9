import { describe, expect, it } from 'vitest';
import { TX_STATUS } from '../src/domain/transactions.ts';
import { ENGINES } from './support/engines.ts';
import { useSecondProcess } from './support/second-process.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, createIntent, encryptCard } from './support/widget-client.ts';

describe.each(ENGINES)('a client_secret pays exactly once (%s, two server processes)', (engine) => {
  const { t, shop } = useTestServer(engine, { withAccount: true });
  const second = useSecondProcess(t);

  it('50 concurrent confirms across both processes: one Settled transaction, 49 clear refusals', async () => {
    const intent = await createIntent(t, shop.secretKey);
    // Fifty shoppers' widgets (or tabs): each ciphertext is fresh, so only the intent's
    // compare-and-set stands between them, not the replay cache.
    const jwes = await Promise.all(
      Array.from({ length: 50 }, () => encryptCard(t, intent.id, card('4242424242424242'))),
    );
    const answers = await Promise.all(
      jwes.map(async (jwe, i) => {
        const body = JSON.stringify({
          pk: shop.clientKey,
          client_secret: intent.client_secret,
          mode: 'sandbox',
          card: jwe,
        });
        const base = i % 2 === 0 ? t.url : second.url;
        const res = await fetch(`${base}/embed/v1/confirm`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        return { status: res.status, json: (await res.json()) as any };
      }),
    );
    const paid = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    expect(paid).toHaveLength(1);
    expect(paid[0]?.json.status).toBe('succeeded');
    expect(refused).toHaveLength(49);
    // Refused by the intent's own rule: more confirms than the card-testing limit (20 a minute)
    // racing for one intent take one slot, the winner's (decision 0270), so none is rate_limited.
    for (const r of refused) {
      expect([`${r.status} ${r.json.error.code}`]).toContainEqual(
        expect.stringMatching(/^(409 payment_in_progress|400 payment_intent_unexpected_state)$/),
      );
    }
    const txs = await t.server.services.repos.transactions.forIntent(shop.id, intent.id);
    expect(txs).toHaveLength(1);
    expect(txs[0]?.status).toBe(TX_STATUS.settled);
    const events = await t.server.services.repos.eventFeed.forObject(shop.id, intent.id);
    expect(events.filter((e) => e.type === 'payment_intent.succeeded')).toHaveLength(1);
  });
});
