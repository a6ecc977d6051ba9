import type { JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { BATTERY_TIMEOUT_MS, count, reportFigure } from './support/battery.ts';
import { ENGINES } from './support/engines.ts';
import { useSecondProcess } from './support/second-process.ts';
import { until } from './support/until.ts';
import { useTestServer } from './support/use-test-server.ts';
import { useReceiver } from './support/webhook-receiver.ts';
import { card, createIntent, encryptCard } from './support/widget-client.ts';

/**
 * Exactly once (issue 15): many shoppers' confirms of one client_secret race, with and
 * without one shared Idempotency-Key, through the widget's HTTP API; on PostgreSQL they are
 * spread over two real `obolus serve` processes sharing the database, on SQLite (one writer
 * process) over many connections to one. A user counts the charges the way they can: the
 * answers, the transactions listed for the intent, the events and the webhooks received.
 * (The sandbox processor keeps no record of its own: it is stateless by design.)
 */
const TRIALS = count(50, 500);
const CONFIRMS_PER_TRIAL = count(6, 8);
const REFUND_TRIALS = count(15, 150);
const AMOUNT = 2000;
const PART = 600; // 5 x 600 = 3000 > 2000: at most 3 fit

interface Answer {
  status: number;
  json: any;
  headers: Headers;
}

async function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json(), headers: res.headers };
}

describe.each(ENGINES)('exactly once (%s)', (engine) => {
  let bases: string[];
  let jwk: JWK;
  /** Paid intents of the confirm battery: the refund battery races on their transactions. */
  const paid: { intent: string; transaction: string }[] = [];

  const receiver = useReceiver();
  const { t, shop } = useTestServer(engine, {
    config: { webhooksAllowLoopback: true, webhooksPollMs: 200 },
    withAccount: true,
  });
  const second =
    engine === 'postgres'
      ? useSecondProcess(t, { env: { OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: 'true', OBOLUS_WEBHOOKS_POLL_MS: '200' } })
      : undefined;
  beforeAll(async () => {
    bases = second ? [t.url, second.url] : [t.url];
    const endpoint = await t.call('POST', '/api/v1/webhook-endpoints', {
      key: shop.secretKey,
      body: { url: receiver.url, enabled_events: ['payment_intent.succeeded'], mode: 'sandbox' },
    });
    expect(endpoint.status).toBe(200);
    jwk = (await t.call('GET', '/embed/v1/jwks.json')).json.keys[0];
  });

  const get = async (path: string) => {
    const res = await t.call('GET', path, { key: shop.secretKey });
    expect(res.status).toBe(200);
    return res.json;
  };

  it(
    `${TRIALS} trials of ${CONFIRMS_PER_TRIAL} concurrent confirms of one client_secret: one charge each`,
    async () => {
      const started = performance.now();
      const chargesPerIntent = new Map<number, number>();
      const refusals = new Map<string, number>();
      for (let trial = 0; trial < TRIALS; trial++) {
        const intent = await createIntent(t, shop.secretKey, { amount: AMOUNT });
        // Odd trials: every request carries the same Idempotency-Key (a client or proxy that
        // adds one to every retry). The widget API does not honour it (decision 0160): the
        // intent's compare-and-set alone must stand.
        const headers: Record<string, string> = trial % 2 ? { 'idempotency-key': `confirm-${intent.id}` } : {};
        const jwes = await Promise.all(
          Array.from({ length: CONFIRMS_PER_TRIAL }, (_, i) =>
            encryptCard(t, intent.id, card(i % 2 ? '5555555555554444' : '4242424242424242'), { jwk }),
          ),
        );
        const answers = await Promise.all(
          jwes.map((jwe, i) =>
            post(
              bases[i % bases.length]!,
              '/embed/v1/confirm',
              { pk: shop.clientKey, client_secret: intent.client_secret, mode: 'sandbox', card: jwe },
              headers,
            ),
          ),
        );
        const succeeded = answers.filter((a) => a.status === 200 && a.json.status === 'succeeded');
        expect(succeeded).toHaveLength(1);
        for (const a of answers.filter((x) => x !== succeeded[0])) {
          expect([400, 409]).toContain(a.status);
          expect(['payment_in_progress', 'payment_intent_unexpected_state']).toContain(a.json.error.code);
          refusals.set(a.json.error.code, (refusals.get(a.json.error.code) ?? 0) + 1);
        }
        const transaction = succeeded[0]!.json.transaction_id as string;
        paid.push({ intent: intent.id, transaction });

        // What the merchant sees: the intent, and every transaction listed for it.
        const read = await get(`/api/v1/payment-intents/${intent.id}`);
        expect(read.status).toBe('succeeded');
        expect(read.last_transaction).toBe(transaction);
        const txs = (await get(`/api/v1/transactions?payment_intent=${intent.id}&limit=100`)).data;
        const charges = txs.filter((tx: { status: number }) => [20, 40, 41, 50].includes(tx.status)).length;
        chargesPerIntent.set(charges, (chargesPerIntent.get(charges) ?? 0) + 1);
        expect(txs).toHaveLength(1);
        expect(txs[0]).toMatchObject({ id: transaction, status: 20, amountpaid: AMOUNT / 100 });
        // The events API: one attempt began, one payment succeeded.
        const events = (await get(`/api/v1/events?object_id=${intent.id}&limit=100`)).data.map(
          (e: { type: string }) => e.type,
        );
        expect(events.filter((type: string) => type === 'payment_intent.processing')).toHaveLength(1);
        expect(events.filter((type: string) => type === 'payment_intent.succeeded')).toHaveLength(1);
      }
      const confirmMs = performance.now() - started;

      // Webhooks: every intent's payment_intent.succeeded arrives, one event id per intent
      // (a redelivery repeats the id; a second charge would bring a second id).
      const idsPerIntent = () => {
        const ids = new Map<string, Set<string>>();
        for (const w of receiver.received) {
          if (w.json?.type !== 'payment_intent.succeeded') continue;
          const set = ids.get(w.json.data.object.id) ?? new Set<string>();
          set.add(w.headers['webhook-id']!);
          ids.set(w.json.data.object.id, set);
        }
        return ids;
      };
      await until(() => paid.every((p) => idsPerIntent().has(p.intent)), count(30_000, 300_000));
      const webhookIds = idsPerIntent();
      for (const p of paid) expect(webhookIds.get(p.intent)?.size).toBe(1);
      expect(webhookIds.size).toBe(paid.length);

      expect([...chargesPerIntent.keys()]).toEqual([1]);
      const histogram = [...chargesPerIntent].map(([charges, n]) => `${charges} charge: ${n} intents`).join(', ');
      reportFigure(
        `exactly once, confirms (${engine}${second ? ', two processes' : ', one process'})`,
        `${TRIALS} trials x ${CONFIRMS_PER_TRIAL} concurrent confirms (half with one shared Idempotency-Key): ` +
          `${histogram}; refusals ${JSON.stringify(Object.fromEntries(refusals))}; ` +
          `${webhookIds.size} payment_intent.succeeded webhooks with ${webhookIds.size} distinct ids; ` +
          `${(confirmMs / 1000).toFixed(1)} s (${(confirmMs / TRIALS).toFixed(0)} ms per trial), ` +
          `${((performance.now() - started) / 1000).toFixed(1)} s with webhooks`,
      );
    },
    BATTERY_TIMEOUT_MS,
  );

  it(
    `${REFUND_TRIALS} trials of 5 racing partial refunds summing past the amount: never more than paid`,
    async () => {
      expect(paid.length).toBeGreaterThanOrEqual(REFUND_TRIALS);
      const started = performance.now();
      let overRefunds = 0;
      let fullRefundsOutraced = 0;
      const succeededPerTrial = new Map<string, number>();
      for (let trial = 0; trial < REFUND_TRIALS; trial++) {
        const { transaction } = paid[trial]!;
        // Three kinds of race: equal partials; partials and a "refund everything left"; equal
        // partials all under one Idempotency-Key (one refund, the rest wait or replay it).
        const kind = (['partials', 'with full', 'one key'] as const)[trial % 3]!;
        const bodies = Array.from({ length: 5 }, (_, i) => (kind === 'with full' && i === 4 ? {} : { amount: PART }));
        const answers = await Promise.all(
          bodies.map((body, i) =>
            post(bases[i % bases.length]!, `/api/v1/transactions/${transaction}/refunds`, body, {
              authorization: `Bearer ${shop.secretKey}`,
              ...(kind === 'one key' ? { 'idempotency-key': `refund-${transaction}` } : {}),
            }),
          ),
        );
        const made = new Map<string, number>();
        for (const [i, a] of answers.entries()) {
          if (a.status === 200) {
            made.set(a.json.id, a.json.amount);
            continue;
          }
          // The documented refusals of docs/decisions/0011 and 0004, in the transactions surface's shape.
          expect(Object.keys(a.json)).toEqual(['error']);
          if (a.status === 400) expect(a.json.error).toMatch(/^amount must be at most \d+:/);
          else {
            expect(a.status).toBe(409);
            // "Everything left" is read again after each lost race, three times at most (decision 0011).
            const lostRaces = 'amount' in bodies[i]! ? [] : ['changed while this refund was being made'];
            const refusals = [
              'already been refunded in full',
              'Idempotency-Key is still being processed',
              ...lostRaces,
            ];
            expect(a.json.error).toMatch(new RegExp(refusals.join('|')));
            if (lostRaces.length && /changed while/.test(a.json.error)) fullRefundsOutraced++;
          }
        }
        const record = await get(`/api/v1/transactions/${transaction}`);
        const sum = [...made.values()].reduce((a, b) => a + b, 0);
        const listed = record.refunds.filter((r: { status: string }) => r.status === 'succeeded');
        expect(new Set(listed.map((r: { id: string }) => r.id))).toEqual(new Set(made.keys()));
        expect(record.amount_refunded).toBe(sum);
        if (sum > AMOUNT) overRefunds++;
        expect(sum).toBeLessThanOrEqual(AMOUNT);
        // A refund that fits is never refused: equal partials take all the room there is.
        if (kind === 'partials') expect(made.size).toBe(Math.floor(AMOUNT / PART));
        if (kind === 'one key') expect(made.size).toBe(1);
        expect(record.status).toBe(sum === AMOUNT ? 40 : 41);
        succeededPerTrial.set(`${kind}: ${made.size}`, (succeededPerTrial.get(`${kind}: ${made.size}`) ?? 0) + 1);
      }
      const ms = performance.now() - started;
      reportFigure(
        `exactly once, refunds (${engine}${second ? ', two processes' : ', one process'})`,
        `${REFUND_TRIALS} trials of 5 concurrent refunds of ${AMOUNT} cents (5 x ${PART}, or 4 x ${PART} and one of ` +
          `everything left, or 5 x ${PART} under one Idempotency-Key): over-refunds ${overRefunds}; refunds made per ` +
          `trial ${JSON.stringify(Object.fromEntries(succeededPerTrial))}; "everything left" refused after three lost ` +
          `races ${fullRefundsOutraced} times; ${(ms / 1000).toFixed(1)} s`,
      );
      expect(overRefunds).toBe(0);
    },
    BATTERY_TIMEOUT_MS,
  );
});
