import { Writable } from 'node:stream';
import fc from 'fast-check';
import type { JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { DAY, ManualClock, MINUTE } from '../src/clock.ts';
import { createLogger } from '../src/logger.ts';
import { WebhookDispatcher } from '../src/workers/webhooks/dispatcher.ts';
import { BATTERY_TIMEOUT_MS, count, reportFigure } from './support/battery.ts';
import { ENGINES } from './support/engines.ts';
import { agree, call, deliverAndCheck, passTime, type Real } from './support/model-real.ts';
import type { Answer, CardKind, Expected, Model, RefundKind } from './support/payment-model.ts';
import * as model from './support/payment-model.ts';
import { WEBHOOKS_BY_HAND } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';
import { useReceiver } from './support/webhook-receiver.ts';
import { card, encryptCard } from './support/widget-client.ts';

/**
 * Model-based test (issue 15): random sequences of create, confirm (approved, declined,
 * processing error, 3-D Secure passed and failed, the chargeback card), refunds (partial,
 * full, over), chargebacks, time passing (challenges abandoned, intents expired, sandbox
 * disputes arriving) and webhook delivery to a real loopback endpoint, against
 * test/support/payment-model.ts. After every command the merchant API and the model agree
 * on every intent's status, amount and last attempt, every transaction's status,
 * amount_refunded, refunds and chargeback flag, and every object's events in order.
 * Race commands start two requests together in an order fast-check's scheduler picks; the
 * real outcome must then be one the model allows (either serial order, or, for two confirms
 * of one intent, one of them refused as `payment_in_progress`).
 */
const RUNS = count(10, 200);
const MAX_COMMANDS = count(20, 50);

/** Commands run (not only generated) per kind, for the figure. */
const ran = new Map<string, number>();
const tally = (name: string) => {
  const kind = name.split('(')[0]!;
  ran.set(kind, (ran.get(kind) ?? 0) + 1);
};
type Op = (m: Model, real: Real) => { send: () => Promise<Answer>; apply: (m: Model, answer: Answer) => Expected };

const confirmOp =
  (pick: number, cardKind: CardKind): Op =>
  (m, real) => {
    const intent = m.intents[pick % m.intents.length]!;
    return {
      send: async () => {
        // The test's clock runs years ahead over many runs: the card stays valid by it.
        const expYear = new Date(real.clock.now()).getUTCFullYear() + 3;
        const plain = card(model.CARDS[cardKind], { exp_year: expYear });
        const jwe = await encryptCard(real.t, intent.id, plain, { jwk: real.jwk });
        const body = { pk: real.shop.clientKey, client_secret: intent.secret, mode: 'sandbox', card: jwe };
        return call(real, 'POST', '/embed/v1/confirm', body, '');
      },
      apply: (m2, answer) => model.confirm(m2, intent.id, cardKind, answer),
    };
  };

const challengeOp =
  (pick: number, pass: boolean): Op =>
  (m, real) => {
    const tx = m.txs.filter((x) => x.challenge)[pick % m.txs.filter((x) => x.challenge).length]!;
    const body = pass ? { code: '1234' } : pick % 2 ? { cancel: true } : { code: '0000' };
    return {
      send: () => call(real, 'POST', `/embed/v1/challenge/${tx.challenge}`, body, ''),
      apply: (m2) => model.completeChallenge(m2, tx.id, pass),
    };
  };

const refundOp =
  (pick: number, kind: RefundKind, fraction: number): Op =>
  (m, real) => {
    const tx = m.txs[pick % m.txs.length]!;
    const body = model.refundBody(m, tx.id, kind, fraction);
    return {
      send: () => call(real, 'POST', `/api/v1/transactions/${tx.id}/refunds`, body),
      apply: (m2) => model.refund(m2, tx.id, body),
    };
  };

const chargebackOp =
  (pick: number): Op =>
  (m, real) => {
    const tx = m.txs[pick % m.txs.length]!;
    return {
      send: () => call(real, 'POST', `/api/v1/sandbox/transactions/${tx.id}/chargeback`, {}),
      apply: (m2) => model.chargeback(m2, tx.id),
    };
  };

/** One request: its answer must be the model's. */
class Single implements fc.AsyncCommand<Model, Real> {
  readonly name: string;
  readonly needs: (m: Model) => boolean;
  readonly op: Op;
  constructor(name: string, needs: (m: Model) => boolean, op: Op) {
    this.name = name;
    this.needs = needs;
    this.op = op;
  }
  check = (m: Readonly<Model>) => this.needs(m as Model);
  async run(m: Model, real: Real) {
    tally(this.name);
    const { send, apply } = this.op(m, real);
    const answer = await send();
    const problem = model.mismatch(apply(m, answer), answer);
    if (problem) throw new Error(`${this.name}: ${problem}`);
    await agree(m, real);
  }
  toString = () => this.name;
}

/**
 * Two requests started together, in the order the scheduler releases them: the answers and
 * the state must be those of one order the model allows.
 */
class Race implements fc.AsyncCommand<Model, Real> {
  readonly name: string;
  readonly needs: (m: Model) => boolean;
  readonly a: Op;
  readonly b: Op;
  /** Two confirms of one intent: the loser may also be refused while the winner's attempt runs. */
  readonly mayOverlap: boolean;
  constructor(name: string, needs: (m: Model) => boolean, a: Op, b: Op, mayOverlap = false) {
    this.name = name;
    this.needs = needs;
    this.a = a;
    this.b = b;
    this.mayOverlap = mayOverlap;
  }
  check = (m: Readonly<Model>) => this.needs(m as Model);
  async run(m: Model, real: Real) {
    tally(this.name);
    const ops = [this.a(m, real), this.b(m, real)] as const;
    // The scheduler releases the two sends in the order it picks, one right after the other.
    const sent = Promise.all(ops.map((op, i) => real.s.schedule(Promise.resolve(i)).then(() => op.send())));
    await real.s.waitAll();
    const answers = await sent;
    const inProgress: Expected = { http: 409, code: 'payment_in_progress' };
    const orders: [number, number, boolean][] = [
      [0, 1, false],
      [1, 0, false],
      ...(this.mayOverlap
        ? ([
            [0, 1, true],
            [1, 0, true],
          ] as [number, number, boolean][])
        : []),
    ];
    const problems: string[] = [];
    for (const [first, second, overlap] of orders) {
      const candidate = model.cloneModel(m);
      const e1 = ops[first]!.apply(candidate, answers[first]!);
      const e2 = overlap ? inProgress : ops[second]!.apply(candidate, answers[second]!);
      const problem = model.mismatch(e1, answers[first]!) ?? model.mismatch(e2, answers[second]!);
      if (problem) {
        problems.push(`${first}${overlap ? '|' : ';'}${second}: ${problem}`);
        continue;
      }
      // Answers alike in both orders (two declines) leave the stored state to tell them apart.
      try {
        await agree(candidate, real);
      } catch (error) {
        problems.push(`${first}${overlap ? '|' : ';'}${second}: ${(error as Error).message}`);
        continue;
      }
      Object.assign(m, candidate);
      return;
    }
    throw new Error(`${this.name}: no order the model allows: ${problems.join(' / ')}`);
  }
  toString = () => this.name;
}

class Advance implements fc.AsyncCommand<Model, Real> {
  readonly ms: number;
  constructor(ms: number) {
    this.ms = ms;
  }
  check = () => true;
  async run(m: Model, real: Real) {
    tally('advance');
    await passTime(m, real, this.ms);
    await agree(m, real);
  }
  toString = () => `advance(${this.ms >= DAY ? `${this.ms / DAY} days` : `${this.ms / MINUTE} min`})`;
}

/** Webhook attempts of the runs that failed and were sent again at their retry time (at least once). */
let webhookRetries = 0;

class DeliverWebhooks implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, real: Real) {
    tally('deliverWebhooks');
    webhookRetries += await deliverAndCheck(m, real);
  }
  toString = () => 'deliverWebhooks';
}

const hasIntent = (m: Model) => m.intents.length > 0;
const hasTx = (m: Model) => m.txs.length > 0;
const hasChallenge = (m: Model) => m.txs.some((tx) => tx.challenge);
const cardKind = fc.constantFrom(...(Object.keys(model.CARDS) as CardKind[]));
const refundKind = fc.constantFrom<RefundKind>('partial', 'partial', 'full', 'over');
const fraction = fc.double({ min: 0.05, max: 0.95, noNaN: true });

const create = fc.integer({ min: 1, max: 99_999 }).map((amount) => {
  const op: Op = (_m, real) => ({
    send: () => call(real, 'POST', '/api/v1/payment-intents', { amount, currency: 'USD', mode: 'sandbox' }),
    apply: (m2, answer) => model.create(m2, amount, answer),
  });
  return new Single(`create(${amount})`, () => true, op);
});

const commands = [
  create,
  create,
  fc.integer({ min: 1, max: 99_999 }).map((amount) => {
    const op: Op = (_m, real) => ({
      send: () => call(real, 'POST', '/api/v1/payment-intents', { amount, currency: 'USD', mode: 'sandbox' }),
      apply: (m2, answer) => model.create(m2, amount, answer),
    });
    return new Single(`create(${amount})`, () => true, op);
  }),
  fc.tuple(fc.nat(), cardKind).map(([p, c]) => new Single(`confirm(${p}, ${c})`, hasIntent, confirmOp(p, c))),
  fc.tuple(fc.nat(), cardKind).map(([p, c]) => new Single(`confirm(${p}, ${c})`, hasIntent, confirmOp(p, c))),
  fc
    .tuple(fc.nat(), fc.boolean())
    .map(([p, pass]) => new Single(`challenge(${p}, ${pass ? 'pass' : 'fail'})`, hasChallenge, challengeOp(p, pass))),
  fc
    .tuple(fc.nat(), refundKind, fraction)
    .map(([p, k, f]) => new Single(`refund(${p}, ${k}, ${f.toFixed(2)})`, hasTx, refundOp(p, k, f))),
  fc.nat().map((p) => new Single(`chargeback(${p})`, hasTx, chargebackOp(p))),
  fc.constantFrom(16 * MINUTE, 7 * DAY + MINUTE, 2 * MINUTE).map((ms) => new Advance(ms)),
  fc.constant(new DeliverWebhooks()),
  fc
    .tuple(fc.nat(), refundKind, fraction, refundKind, fraction)
    .map(
      ([p, k1, f1, k2, f2]) =>
        new Race(
          `race(refund ${k1} ${f1.toFixed(2)}, refund ${k2} ${f2.toFixed(2)} of ${p})`,
          hasTx,
          refundOp(p, k1, f1),
          refundOp(p, k2, f2),
        ),
    ),
  fc
    .tuple(fc.nat(), refundKind, fraction)
    .map(
      ([p, k, f]) =>
        new Race(`race(refund ${k} ${f.toFixed(2)}, chargeback of ${p})`, hasTx, refundOp(p, k, f), chargebackOp(p)),
    ),
  fc
    .tuple(fc.nat(), cardKind, cardKind)
    .map(
      ([p, c1, c2]) =>
        new Race(`race(confirm ${c1}, confirm ${c2} of ${p})`, hasIntent, confirmOp(p, c1), confirmOp(p, c2), true),
    ),
  fc
    .tuple(fc.nat(), fc.boolean(), fc.boolean())
    .map(
      ([p, a, b]) =>
        new Race(
          `race(challenge ${a ? 'pass' : 'fail'}, challenge ${b ? 'pass' : 'fail'} of ${p})`,
          hasChallenge,
          challengeOp(p, a),
          challengeOp(p, b),
        ),
    ),
];

describe.each(ENGINES)('model-based test of the payment state machine (%s)', (engine) => {
  let dispatcher: WebhookDispatcher;
  let jwk: JWK;
  const dispatcherErrors: string[] = [];
  const clock = new ManualClock(Date.UTC(2026, 10, 1));
  const receiver = useReceiver();
  const { t } = useTestServer(engine, { clock, config: WEBHOOKS_BY_HAND });
  beforeAll(async () => {
    // Its errors (an attempt that could not be made or recorded) go into a failure's message.
    const sink = new Writable({
      write(chunk, _encoding, done) {
        dispatcherErrors.push(String(chunk));
        done();
      },
    });
    dispatcher = new WebhookDispatcher(t.server.services, { logger: createLogger('warn', sink) });
    jwk = (await t.call('GET', '/embed/v1/jwks.json')).json.keys[0];
  });

  it(
    `${RUNS} random command sequences agree with the model after every command`,
    async () => {
      const started = performance.now();
      ran.clear();
      webhookRetries = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.scheduler(),
          fc.commands(commands, { maxCommands: MAX_COMMANDS, size: 'max' }),
          async (s, cmds) => {
            // A fresh shop per run, with a webhook endpoint for everything, at a fresh minute.
            clock.advance(MINUTE);
            const shop = await t.newAccount();
            const endpoint = await t.call('POST', '/api/v1/webhook-endpoints', {
              key: shop.secretKey,
              body: { url: receiver.url, enabled_events: ['*'], mode: 'sandbox' },
            });
            expect(endpoint.status).toBe(200);
            const real: Real = { t, shop, clock, receiver, dispatcher, jwk, s, dispatcherErrors };
            await fc.asyncModelRun(() => ({ model: model.newModel(clock.now()), real }), cmds);
          },
        ),
        {
          numRuns: RUNS,
          ...(process.env.MODEL_SEED ? { seed: Number(process.env.MODEL_SEED) } : {}),
          ...(process.env.MODEL_PATH ? { path: process.env.MODEL_PATH } : {}),
        },
      );
      const seconds = (performance.now() - started) / 1000;
      reportFigure(
        `model-based test (${engine})`,
        `${RUNS} runs, ${[...ran.values()].reduce((a, b) => a + b, 0)} commands run ` +
          `(${JSON.stringify(Object.fromEntries(ran))}), ` +
          `0 disagreements; ${webhookRetries} webhook attempts failed and were retried; ${seconds.toFixed(1)} s`,
      );
    },
    BATTERY_TIMEOUT_MS,
  );
});
