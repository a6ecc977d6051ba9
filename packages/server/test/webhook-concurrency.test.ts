import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, MINUTE } from '../src/clock.ts';
import { fanOutEvents } from '../src/domain/webhooks/fanout.ts';
import type { Services } from '../src/services.ts';
import { openServices } from '../src/services.ts';
import { LEASE_MS, WebhookDispatcher } from '../src/workers/webhooks/dispatcher.ts';
import { OBOLUS_BIN } from './support/cli.ts';
import { ENGINES, PG_URL } from './support/engines.ts';
import { type TestAccount, WEBHOOKS_BY_HAND } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';
import { type Receiver, startReceiver, useReceiver } from './support/webhook-receiver.ts';

const INTENTS = 30;
const MAX_IN_FLIGHT = 4;

describe.each(ENGINES)('two dispatchers on one database (%s)', (engine) => {
  let second: Services;
  let receivers: Receiver[] = [];
  const clock = new ManualClock(Date.now());
  const { t } = useTestServer(engine, { clock, config: WEBHOOKS_BY_HAND });
  beforeAll(async () => {
    // Its own connection pool (PostgreSQL) or its own connection to the file (SQLite), like another process.
    second = await openServices(t.server.services.config, {
      clock,
      ...(t.database.schema ? { schema: t.database.schema } : {}),
    });
  });
  afterEach(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    receivers = [];
  });
  afterAll(() => second?.database.close());

  const setUp = async (): Promise<TestAccount> => {
    const shop = await t.newAccount();
    receivers = [await startReceiver(), await startReceiver(), await startReceiver()];
    for (const receiver of receivers) {
      const res = await t.call('POST', '/api/v1/webhook-endpoints', {
        key: shop.secretKey,
        body: { url: receiver.url, enabled_events: ['*'], mode: 'sandbox' },
      });
      expect(res.status).toBe(200);
    }
    for (let i = 1; i <= INTENTS; i++) {
      await t.call('POST', '/api/v1/payment-intents', {
        key: shop.secretKey,
        body: { amount: i, currency: 'USD', mode: 'sandbox' },
      });
    }
    return shop;
  };

  it('never attempts one delivery twice at once, and delivers every event to every endpoint once', async () => {
    const shop = await setUp();
    // Fanned out beforehand: a dispatcher whose claim ran before the other's fan-out committed
    // would find nothing due and end its pass, leaving the whole first round to the other.
    await fanOutEvents(t.server.services.repos.webhookFanout, clock, LEASE_MS, 100);
    // A dispatcher holds at most MAX_IN_FLIGHT attempts, so one request more in flight can only be
    // the other's. Each round's answers wait for it: both dispatchers take part however the
    // machine schedules them. If one never sends, the wait ends after a while and the split fails.
    let seenThisRound = 0;
    let bothSending = Promise.resolve();
    let open = () => {};
    const holdUntilBothSend = () => {
      seenThisRound = 0;
      bothSending = new Promise<void>((resolve) => {
        const fallback = setTimeout(resolve, 5_000);
        open = () => {
          clearTimeout(fallback);
          resolve();
        };
      });
    };
    const firstTry = new Set<string>();
    for (const receiver of receivers) {
      // Slow answers keep attempts in flight while the other dispatcher claims; every first try fails.
      receiver.reply = (w) => {
        const key = `${receiver.port}/${w.headers['webhook-id']}`;
        const status = firstTry.has(key) ? 200 : 500;
        firstTry.add(key);
        if (++seenThisRound === MAX_IN_FLIGHT + 1) open();
        return { status, delayMs: 15, after: bothSending };
      };
    }
    const a = new WebhookDispatcher(t.server.services, { maxInFlight: MAX_IN_FLIGHT });
    const b = new WebhookDispatcher(second, { maxInFlight: MAX_IN_FLIGHT });
    const byA: number[] = [];
    const byB: number[] = [];
    for (let round = 0; round < 2; round++) {
      holdUntilBothSend();
      const [ra, rb] = await Promise.all([a.runOnce(), b.runOnce()]);
      byA.push(ra.attempts.length);
      byB.push(rb.attempts.length);
      clock.advance(10 * MINUTE);
    }
    // Everything was delivered in the second round: later passes find nothing to send.
    const [ra, rb] = await Promise.all([a.runOnce(), b.runOnce()]);
    expect(ra.attempts.length + rb.attempts.length).toBe(0);
    const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0);
    // 30 events x 3 endpoints, each tried twice (a failure, then the success), by whichever dispatcher came first.
    expect(sum(byA) + sum(byB)).toBe(INTENTS * 3 * 2);
    // Both took part, so the checks below ran with two dispatchers at once. Not every round: a
    // dispatcher whose claim races the other's twice in a row finds nothing and ends its pass
    // (its next pass sends what is left, as in production), and the round is then the other's.
    expect(sum(byA), `attempts by the first dispatcher per round: ${byA}, by the second: ${byB}`).toBeGreaterThan(0);
    expect(sum(byB), `attempts by the first dispatcher per round: ${byA}, by the second: ${byB}`).toBeGreaterThan(0);
    for (const receiver of receivers) {
      expect(receiver.maxConcurrentSameId()).toBe(1);
      const perId = new Map<string, number>();
      for (const w of receiver.received)
        perId.set(w.headers['webhook-id']!, (perId.get(w.headers['webhook-id']!) ?? 0) + 1);
      expect(perId.size).toBe(INTENTS);
      expect([...perId.values()].every((n) => n === 2)).toBe(true);
    }
    const endpoints = (await t.call('GET', '/api/v1/webhook-endpoints', { key: shop.secretKey })).json.data;
    for (const endpoint of endpoints) {
      const log = await t.call('GET', `/api/v1/webhook-endpoints/${endpoint.id}/attempts?limit=100`, {
        key: shop.secretKey,
      });
      expect(log.json.data).toHaveLength(INTENTS * 2);
      expect(log.json.data.filter((x: { succeeded: boolean }) => x.succeeded)).toHaveLength(INTENTS);
    }
  });
});

describe.runIf(PG_URL)('two `obolus worker` processes on PostgreSQL', () => {
  const { t } = useTestServer('postgres', { config: WEBHOOKS_BY_HAND });
  const receiver = useReceiver();

  it('share the work: each webhook arrives once, never two copies at once', async () => {
    const shop = await t.newAccount();
    await t.call('POST', '/api/v1/webhook-endpoints', {
      key: shop.secretKey,
      body: { url: receiver.url, enabled_events: ['*'], mode: 'sandbox' },
    });
    receiver.reply = () => ({ status: 200, delayMs: 20 });
    const url = new URL(PG_URL!);
    url.searchParams.set('options', `-c search_path=${t.database.schema}`);
    const env = {
      ...process.env,
      OBOLUS_DATABASE_URL: url.toString(),
      OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: 'true',
      OBOLUS_WEBHOOKS_POLL_MS: '50',
      OBOLUS_LOG_LEVEL: 'debug',
    };
    const workers = [0, 1].map(() => {
      const child = spawn(process.execPath, [OBOLUS_BIN, 'worker'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      const exited = new Promise((resolve) => child.on('close', resolve));
      return { child, exited, out: () => out };
    });
    try {
      for (let i = 1; i <= 40; i++) {
        await t.call('POST', '/api/v1/payment-intents', {
          key: shop.secretKey,
          body: { amount: i, currency: 'USD', mode: 'sandbox' },
        });
      }
      const end = Date.now() + 20_000;
      while (receiver.received.length < 40 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    } finally {
      for (const w of workers) w.child.kill('SIGTERM');
      await Promise.all(workers.map((w) => w.exited));
    }
    const ids = receiver.received.map((w) => w.headers['webhook-id']);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    expect(receiver.maxConcurrentSameId()).toBe(1);
    const delivered = workers.map((w) => (w.out().match(/webhook delivered/g) ?? []).length);
    expect(delivered[0]! + delivered[1]!).toBe(40);
  });
});
