import { describe, expect, it } from 'vitest';
import { ManualClock, MINUTE } from '../src/clock.ts';
import { CHALLENGE_TIMEOUT_MS, failAbandonedChallenges } from '../src/domain/payments/abandoned-challenges.ts';
import { MAX_FAILURES_PER_IP_PER_MINUTE } from '../src/domain/payments/failure-limiter.ts';
import { paymentDeps } from '../src/services.ts';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

/**
 * One failed attempt counts once against its client network's per-minute limit, however many
 * requests or sweeper passes race to record its outcome (seen while writing model-based.test.ts: two
 * answers to one 3-D Secure challenge each counted the failure, as did two processes'
 * sweepers failing one abandoned challenge).
 */
describe.each(ENGINES)('a failed attempt is counted once by the card-testing limit (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 3, 12));
  const { t, shop } = useTestServer(engine, { clock, config: { webhooksPollMs: 0 }, withAccount: true });

  /** `n` declined attempts from this network, on intents of their own (each allows 10). */
  async function declines(n: number) {
    for (let done = 0; done < n; ) {
      const intent = await createIntent(t, shop.secretKey);
      for (let i = 0; i < 9 && done < n; i++, done++) {
        const res = await confirm(t, shop.clientKey, intent.client_secret, card('4000000000000002'));
        expect(res.json.status).toBe('failed');
      }
    }
  }
  async function challenged() {
    const intent = await createIntent(t, shop.secretKey);
    const res = await confirm(t, shop.clientKey, intent.client_secret, card('4000000000003220'));
    expect(res.json.status).toBe('requires_action');
    return new URL(res.json.challenge_url).pathname;
  }
  /** The limit's last free failure is still let through, and the one after it is not. */
  async function expectOneFailureLeft() {
    const intent = await createIntent(t, shop.secretKey);
    const last = await confirm(t, shop.clientKey, intent.client_secret, card('4000000000000002'));
    expect(last.json).toMatchObject({ status: 'failed' });
    const refused = await confirm(t, shop.clientKey, intent.client_secret, card('4000000000000002'));
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('rate_limited');
  }

  it('eight answers racing to fail one challenge count one failure', async () => {
    clock.advance(MINUTE);
    const path = await challenged();
    await declines(MAX_FAILURES_PER_IP_PER_MINUTE - 2);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => t.call('POST', path, { body: { code: '0000' } })),
    );
    for (const a of answers)
      expect(a.json).toMatchObject({ status: 'failed', error: { code: 'authentication_failed' } });
    await expectOneFailureLeft();
  });

  it('sweeper passes racing to fail one abandoned challenge count one failure', async () => {
    clock.advance(MINUTE);
    await challenged();
    clock.advance(CHALLENGE_TIMEOUT_MS + 1000);
    // The challenge took its slot when it was confirmed, in its own minute (decision 0200):
    // failing it now counts nothing in this one.
    await declines(MAX_FAILURES_PER_IP_PER_MINUTE - 1);
    const deps = paymentDeps(t.server.services);
    const passes = await Promise.all(Array.from({ length: 4 }, () => failAbandonedChallenges(deps)));
    expect(passes.flat()).toHaveLength(1);
    await expectOneFailureLeft();
  });
});
