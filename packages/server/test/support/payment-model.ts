/**
 * A simple model of the payment state machine (docs/decisions/0007, 0008, 0011, 0012, 0081):
 * what the model-based test (model-based.test.ts) expects the real server to answer and to
 * hold after each command. Written from the decisions, not from the code: where they
 * disagree, the test says so.
 */
import { DAY, MINUTE } from '../../src/clock.ts';

export const CARDS = {
  approve: '4242424242424242',
  frictionless: '4000000000003055',
  chargeback: '4000000000000259',
  decline: '4000000000000002',
  insufficient: '4000000000009995',
  error: '4000000000000119',
  challenge: '4000000000003220',
  challenge_declined: '4000008400001629',
} as const;
export type CardKind = keyof typeof CARDS;

const DECLINES: Partial<Record<CardKind, string>> = {
  decline: 'card_declined',
  insufficient: 'insufficient_funds',
  error: 'processing_error',
};

export const LIFETIME_MS = 7 * DAY;
export const CHALLENGE_TIMEOUT_MS = 15 * MINUTE;
export const DISPUTE_AFTER_MS = MINUTE;
export const MAX_FAILED_PER_INTENT = 10;
export const MAX_FAILURES_PER_MINUTE = 20;

export interface MIntent {
  id: string;
  secret: string;
  amount: number;
  status: 'requires_payment' | 'processing' | 'succeeded' | 'failed' | 'expired';
  lastTx: string | null;
  failedAttempts: number;
  createdAt: number;
}

export interface MTx {
  id: string;
  intentId: string;
  card: CardKind;
  status: number;
  amount: number;
  refunded: number;
  refunds: number[];
  chargeback: boolean;
  declineCode: string | null;
  /** The challenge token while the attempt waits on 3-D Secure (kept after, to answer again). */
  challenge: string | null;
  createdAt: number;
  disputeAt: number | null;
}

export interface Model {
  now: number;
  intents: MIntent[];
  txs: MTx[];
  /** Failed payments of the client network (all requests come from 127.0.0.1) per minute window. */
  failures: Record<string, number>;
  /** Event types per object id, in order. */
  events: Record<string, string[]>;
}

/** What the server should answer: an HTTP status and an error code, a plain-error message, or an outcome. */
export interface Expected {
  http: number;
  code?: string;
  message?: RegExp;
  outcome?: 'succeeded' | 'failed' | 'requires_action';
  declineCode?: string | undefined;
}

export interface Answer {
  status: number;
  json: any;
}

export const newModel = (now: number): Model => ({ now, intents: [], txs: [], failures: {}, events: {} });
export const cloneModel = (m: Model): Model => structuredClone(m);

const emit = (m: Model, id: string, type: string) => {
  m.events[id] = [...(m.events[id] ?? []), type];
};
const windowOf = (now: number) => String(now - (now % MINUTE));
const failed = (m: Model) => {
  m.failures[windowOf(m.now)] = (m.failures[windowOf(m.now)] ?? 0) + 1;
};
export const intentOf = (m: Model, id: string) => m.intents.find((i) => i.id === id)!;
export const txOf = (m: Model, id: string) => m.txs.find((tx) => tx.id === id)!;

export function create(m: Model, amount: number, real: Answer): Expected {
  if (real.status === 200) {
    m.intents.push({
      id: real.json.id,
      secret: real.json.client_secret,
      amount,
      status: 'requires_payment',
      lastTx: null,
      failedAttempts: 0,
      createdAt: m.now,
    });
    emit(m, real.json.id, 'payment_intent.created');
  }
  return { http: 200 };
}

/** An attempt ends: the transaction and the intent move, with their events, as one write. */
function finish(m: Model, tx: MTx, outcome: { ok: true } | { ok: false; code: string }): Expected {
  const intent = intentOf(m, tx.intentId);
  tx.status = outcome.ok ? 20 : outcome.code === 'processing_error' ? 31 : 30;
  tx.declineCode = outcome.ok ? null : outcome.code;
  if (outcome.ok && tx.card === 'chargeback') tx.disputeAt = m.now + DISPUTE_AFTER_MS;
  emit(m, tx.id, 'transaction.updated');
  intent.status = outcome.ok ? 'succeeded' : 'failed';
  if (!outcome.ok) {
    intent.failedAttempts++;
    failed(m);
  }
  emit(m, intent.id, outcome.ok ? 'payment_intent.succeeded' : 'payment_intent.payment_failed');
  return outcome.ok ? { http: 200, outcome: 'succeeded' } : { http: 200, outcome: 'failed', declineCode: outcome.code };
}

export function confirm(m: Model, intentId: string, card: CardKind, real: Answer): Expected {
  const intent = intentOf(m, intentId);
  if (intent.status === 'succeeded') return { http: 400, code: 'payment_intent_unexpected_state' };
  if (intent.status === 'expired' || intent.createdAt + LIFETIME_MS <= m.now) {
    return { http: 400, code: 'payment_intent_expired' };
  }
  if (intent.status === 'processing') return { http: 409, code: 'payment_in_progress' };
  if (intent.failedAttempts >= MAX_FAILED_PER_INTENT) return { http: 429, code: 'too_many_attempts' };
  if ((m.failures[windowOf(m.now)] ?? 0) >= MAX_FAILURES_PER_MINUTE) return { http: 429, code: 'rate_limited' };
  const challenge = card === 'challenge' || card === 'challenge_declined';
  const expected: Expected = challenge ? { http: 200, outcome: 'requires_action' } : { http: 200 };
  if (real.status !== 200 || typeof real.json?.transaction_id !== 'string') return expected;
  const tx: MTx = {
    id: real.json.transaction_id,
    intentId,
    card,
    status: 10,
    amount: intent.amount,
    refunded: 0,
    refunds: [],
    chargeback: false,
    declineCode: null,
    challenge: challenge ? String(real.json.challenge_url).split('/').at(-1)! : null,
    createdAt: m.now,
    disputeAt: null,
  };
  m.txs.push(tx);
  intent.status = 'processing';
  intent.lastTx = tx.id;
  emit(m, intentId, 'payment_intent.processing');
  emit(m, tx.id, 'transaction.created');
  if (challenge) return expected;
  const code = DECLINES[card];
  return finish(m, tx, code ? { ok: false, code } : { ok: true });
}

/** The shopper answers the sandbox ACS: the right code passes, anything else fails. */
export function completeChallenge(m: Model, txId: string, pass: boolean): Expected {
  const tx = txOf(m, txId);
  if (tx.status !== 10) {
    const ok = tx.declineCode === null;
    return ok ? { http: 200, outcome: 'succeeded' } : { http: 200, outcome: 'failed', declineCode: tx.declineCode! };
  }
  if (!pass) return finish(m, tx, { ok: false, code: 'authentication_failed' });
  return finish(m, tx, tx.card === 'challenge' ? { ok: true } : { ok: false, code: 'card_declined' });
}

export type RefundKind = 'partial' | 'full' | 'over';

/** The request body a refund command sends, from the model's state when it is sent. */
export function refundBody(m: Model, txId: string, kind: RefundKind, fraction: number): { amount?: number } {
  const tx = txOf(m, txId);
  const left = tx.amount - tx.refunded;
  if (kind === 'full') return {};
  if (kind === 'over') return { amount: left + 1 };
  return { amount: Math.max(1, Math.floor(left * fraction)) };
}

export function refund(m: Model, txId: string, body: { amount?: number }): Expected {
  const tx = txOf(m, txId);
  if (tx.chargeback || tx.status === 50) return { http: 409, message: /has a chargeback/ };
  if (tx.status === 40) return { http: 409, message: /already been refunded in full/ };
  if (tx.status !== 20 && tx.status !== 41) return { http: 409, message: /^Only settled transactions can be refunded/ };
  const left = tx.amount - tx.refunded;
  const amount = body.amount ?? left;
  if (amount > left) return { http: 400, message: new RegExp(`^amount must be at most ${left}:`) };
  tx.refunded += amount;
  tx.refunds.push(amount);
  tx.status = tx.refunded === tx.amount ? 40 : 41;
  emit(m, tx.id, 'transaction.updated');
  return { http: 200 };
}

export function chargeback(m: Model, txId: string): Expected {
  const tx = txOf(m, txId);
  if (tx.chargeback) return { http: 409, message: /already has a chargeback/ };
  if (![20, 40, 41].includes(tx.status)) return { http: 409, message: /^Only a transaction whose money was captured/ };
  tx.chargeback = true;
  tx.status = 50;
  emit(m, tx.id, 'transaction.updated');
  return { http: 200 };
}

/**
 * Time passes, then one pass of the background work, in the expiry sweeper's order:
 * challenges open for 15 minutes fail, intents past 7 days expire; then the dispute
 * simulator records the sandbox chargeback card's due disputes.
 */
export function advance(m: Model, ms: number): void {
  m.now += ms;
  for (const tx of m.txs) {
    if (tx.status === 10 && tx.challenge && tx.createdAt < m.now - CHALLENGE_TIMEOUT_MS) {
      finish(m, tx, { ok: false, code: 'authentication_failed' });
    }
  }
  for (const intent of m.intents) {
    if (intent.status !== 'succeeded' && intent.status !== 'expired' && intent.createdAt + LIFETIME_MS <= m.now) {
      intent.status = 'expired';
      emit(m, intent.id, 'payment_intent.expired');
    }
  }
  for (const tx of m.txs) {
    if (tx.disputeAt !== null && tx.disputeAt <= m.now && !tx.chargeback && [20, 40, 41].includes(tx.status)) {
      tx.chargeback = true;
      tx.status = 50;
      emit(m, tx.id, 'transaction.updated');
    }
  }
}

/** Whether a real answer is the expected one; a reason when not. */
export function mismatch(expected: Expected, real: Answer): string | null {
  const problems: string[] = [];
  if (real.status !== expected.http) problems.push(`status ${real.status}, expected ${expected.http}`);
  if (expected.code && real.json?.error?.code !== expected.code) problems.push(`code, expected ${expected.code}`);
  if (expected.message && !expected.message.test(String(real.json?.error))) {
    problems.push(`message, expected ${expected.message}`);
  }
  if (expected.outcome && real.json?.status !== expected.outcome)
    problems.push(`outcome, expected ${expected.outcome}`);
  if (expected.declineCode && real.json?.error?.code !== expected.declineCode) {
    problems.push(`decline code, expected ${expected.declineCode}`);
  }
  return problems.length ? `${problems.join('; ')}; got ${JSON.stringify(real.json)}` : null;
}
