import { describe, expect, it } from 'vitest';
import { ManualClock, MINUTE } from '../src/clock.ts';
import { MAX_FAILURES_PER_IP_PER_MINUTE } from '../src/domain/payments/failure-limiter.ts';
import { ENGINES } from './support/engines.ts';
import { useSecondProcess } from './support/second-process.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent, encryptCard } from './support/widget-client.ts';

/**
 * Issue 25 item 3: the card-testing cap (20 failures a minute per client network) was
 * check-then-act, so 40 declined confirms sent at once all reached the processor. A slot is
 * now taken atomically before the processor is called (decision 0200).
 */
describe.each(ENGINES)('card-testing slots taken before the processor (%s)', (engine) => {
  const { t } = useTestServer(engine);
  const other = useSecondProcess(t);

  /** `n` confirms of their own intents, ready to send: half to each process. */
  async function prepared(n: number, number: string) {
    const shop = await t.newAccount();
    return Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const intent = await createIntent(t, shop.secretKey);
        const jwe = await encryptCard(t, intent.client_secret, card(number));
        const url = i % 2 === 0 ? t.url : other.url;
        const body = JSON.stringify({
          pk: shop.clientKey,
          client_secret: intent.client_secret,
          mode: 'sandbox',
          card: jwe,
        });
        return () =>
          fetch(`${url}/embed/v1/confirm`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
          }).then(async (res) => ({
            status: res.status,
            json: (await res.json()) as { status?: string; error?: { code: string } },
          }));
      }),
    );
  }

  /** Fires every request at once; the number of minute windows the burst touched, and the answers. */
  async function burst(sends: (() => ReturnType<Awaited<ReturnType<typeof prepared>>[number]>)[]) {
    const first = Math.floor(Date.now() / MINUTE);
    const answers = await Promise.all(sends.map((send) => send()));
    const windows = Math.floor(Date.now() / MINUTE) - first + 1;
    return { answers, windows };
  }

  it('40 declined confirms at once over two processes: at most 20 a minute reach the processor', async () => {
    const { answers, windows } = await burst(await prepared(40, '4000000000000002'));
    const declined = answers.filter((a) => a.json.status === 'failed').length;
    const refused = answers.filter((a) => a.status === 429 && a.json.error?.code === 'rate_limited').length;
    expect(declined + refused).toBe(40);
    // A burst that crossed a minute boundary may use two windows' worth, never more.
    if (windows === 1) expect(declined).toBe(MAX_FAILURES_PER_IP_PER_MINUTE);
    else expect(declined).toBeLessThanOrEqual(windows * MAX_FAILURES_PER_IP_PER_MINUTE);
  }, 60_000);
});

describe.each(ENGINES)('card-testing slots taken by the attempt that begins (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 5, 12));
  const { t } = useTestServer(engine, { clock });

  it('30 confirms of one intent at once, with one slot left: the intent refuses 29, none is rate_limited', async () => {
    const shop = await t.newAccount();
    // 3-D Secure: an attempt stays in flight, holding its slot, until the shopper answers.
    for (let i = 1; i < MAX_FAILURES_PER_IP_PER_MINUTE; i++) {
      const other = await createIntent(t, shop.secretKey);
      const res = await confirm(t, shop.clientKey, other.client_secret, card('4000000000003220'));
      expect(res.json.status).toBe('requires_action');
    }
    const intent = await createIntent(t, shop.secretKey);
    const jwes = await Promise.all(
      Array.from({ length: 30 }, () => encryptCard(t, intent.client_secret, card('4000000000003220'))),
    );
    const answers = await Promise.all(
      jwes.map((jwe) => confirm(t, shop.clientKey, intent.client_secret, null, { jwe })),
    );
    expect(answers.filter((a) => a.status === 200).map((a) => a.json.status)).toEqual(['requires_action']);
    expect(answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.json.error.code}`)).toEqual(
      Array.from({ length: 29 }, () => '409 payment_in_progress'),
    );
    // The winner took the last slot.
    const last = await createIntent(t, shop.secretKey);
    const refused = await confirm(t, shop.clientKey, last.client_secret, card('4000000000003220'));
    expect(`${refused.status} ${refused.json.error.code}`).toBe('429 rate_limited');
  }, 60_000);
});

describe.each(ENGINES)('card-testing slots given back (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 5, 12));
  const { t } = useTestServer(engine, { clock });

  it('a payment that succeeds, or a confirm refused before any attempt, gives its slot back', async () => {
    const shop = await t.newAccount();
    for (let i = 0; i < MAX_FAILURES_PER_IP_PER_MINUTE + 5; i++) {
      const intent = await createIntent(t, shop.secretKey);
      expect((await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'))).json.status).toBe(
        'succeeded',
      );
      // An expired card is refused before any attempt: nothing counted.
      const other = await createIntent(t, shop.secretKey);
      const expired = await confirm(
        t,
        shop.clientKey,
        other.client_secret,
        card('4242424242424242', { exp_year: 2020 }),
      );
      expect(expired.status).toBe(400);
    }
    for (let i = 0; i < MAX_FAILURES_PER_IP_PER_MINUTE; i++) {
      const intent = await createIntent(t, shop.secretKey);
      expect((await confirm(t, shop.clientKey, intent.client_secret, card('4000000000000002'))).json.status).toBe(
        'failed',
      );
    }
    const intent = await createIntent(t, shop.secretKey);
    const refused = await confirm(t, shop.clientKey, intent.client_secret, card('4000000000000002'));
    expect(refused.status).toBe(429);
    clock.advance(MINUTE);
    expect((await confirm(t, shop.clientKey, intent.client_secret, card('4000000000000002'))).json.status).toBe(
      'failed',
    );
  }, 60_000);
});
