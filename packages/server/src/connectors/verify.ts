import { randomBytes } from 'node:crypto';
import type { AttemptRef, AuthorizeOutcome, AuthorizeRequest, Processor } from '../domain/payments/ports.ts';

/**
 * `obolus verify-connector` (decision 0190): a scripted set of payments an operator runs
 * through a live connector against their own sandbox account of the acquirer, before going
 * live, with the acquirer's published test cards. Each step says what the acquirer answered,
 * what Obolus makes of it, and whether that is what it should be; what only a person looking
 * at the account can settle is listed as such.
 */

export interface VerifyCards {
  approve: string;
  decline: string;
  insufficientFunds: string;
  threeDS: string;
}

export interface VerifyPlan {
  acquirer: string;
  cards: VerifyCards;
  /** Checks only a person with the account can make (no API answers them). */
  byHand: { step: string; what: string }[];
  /** How long a lookup by reference may lag behind a payment (Stripe's search: up to a minute). */
  lookupLagMs: number;
  /** What an approval with automatic capture is at once: captured (Stripe) or authorized, captured later (Checkout.com). */
  approvedAs: 'captured' | 'authorized';
}

export interface StepRow {
  step: string;
  card: string;
  /** What the acquirer answered, in its words. */
  answered: string;
  /** What Obolus makes of it. */
  obolus: string;
  /** What it should be. */
  expected: string;
  /** true: agrees; false: does not; null: to check by hand. */
  agrees: boolean | null;
}

export const STRIPE_PLAN: VerifyPlan = {
  acquirer: 'Stripe',
  // docs.stripe.com/testing
  cards: {
    approve: '4242424242424242',
    decline: '4000000000000002',
    insufficientFunds: '4000000000009995',
    threeDS: '4000000000003220',
  },
  byHand: [
    {
      step: 'webhook events',
      what: 'Developers > Webhooks: the endpoint receives payment_intent.*, charge.dispute.*, refund.* (docs/live.md)',
    },
  ],
  lookupLagMs: 70_000,
  approvedAs: 'captured',
};

export const CHECKOUT_PLAN: VerifyPlan = {
  acquirer: 'Checkout.com',
  // checkout.com/docs/testing/test-cards
  cards: {
    approve: '4242424242424242',
    decline: '4000000000000002',
    insufficientFunds: '4544249167673670',
    threeDS: '4485040371536584',
  },
  byHand: [
    {
      step: 'payment_refunded shape',
      what: "the refund step's webhook: data.reference is the payment's reference and data.action_id the refund's id above",
    },
    {
      step: 'card not enrolled in 3-D Secure',
      what: 'no published test card: with attempt_n3d (OBOLUS_CHECKOUT_3DS=attempt) it must be charged; ask Checkout.com',
    },
  ],
  lookupLagMs: 30_000,
  approvedAs: 'authorized',
};

const newId = () => randomBytes(12).toString('hex');

function request(number: string, over: Partial<AuthorizeRequest> = {}): AuthorizeRequest {
  return {
    attemptId: newId(),
    intentId: newId(),
    amount: 2500,
    currency: 'USD',
    mode: 'live',
    card: { number, expMonth: 12, expYear: new Date().getUTCFullYear() + 3, cvc: '100', name: 'Obolus Verify' },
    descriptor: 'OBOLUS VERIFY',
    returnUrl: 'https://verify.obolus.invalid/return',
    ...over,
  };
}

const said = (outcome: AuthorizeOutcome | null) => outcome?.acquirer || '(no answer)';
const read = (outcome: AuthorizeOutcome | null): string => {
  if (!outcome) return 'nothing found';
  switch (outcome.kind) {
    case 'approved':
      return `approved (${outcome.funds ?? 'captured'})`;
    case 'declined':
      return `declined ${outcome.code}`;
    case 'challenge':
      return 'challenge (issuer page)';
    default:
      return outcome.kind;
  }
};

/**
 * Runs the script through `processor`, reporting each row as it is done (`onRow`: progress
 * on a terminal). Nothing here is retried: a row that disagrees is the answer.
 */
export async function verifyConnector(
  processor: Processor,
  plan: VerifyPlan,
  onRow: (row: StepRow) => void,
  wait: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<StepRow[]> {
  const rows: StepRow[] = [];
  const add = (row: StepRow) => {
    rows.push(row);
    onRow(row);
  };
  const { cards } = plan;
  const authorize = async (step: string, card: string, expected: string, over: Partial<AuthorizeRequest> = {}) => {
    const req = request(card, over);
    const outcome = await processor.authorize(req);
    add({ step, card, answered: said(outcome), obolus: read(outcome), expected, agrees: read(outcome) === expected });
    return { req, outcome };
  };
  const approved = await authorize('approve', cards.approve, `approved (${plan.approvedAs})`);
  await authorize('decline', cards.decline, 'declined card_declined');
  await authorize('insufficient funds', cards.insufficientFunds, 'declined insufficient_funds');
  await authorize('3-D Secure', cards.threeDS, 'challenge (issuer page)');
  const paymentRef = approved.outcome.kind === 'approved' ? (approved.outcome.refs?.payment ?? null) : null;
  const attempt: AttemptRef = { attemptId: approved.req.attemptId, paymentRef };
  await refundStep(processor, attempt, cards.approve, add);
  await voidStep(processor, cards.approve, add);
  await lookupStep(processor, attempt, plan.lookupLagMs, wait, add);
  for (const check of plan.byHand) {
    add({ step: check.step, card: '', answered: '', obolus: '', expected: 'see below', agrees: null });
  }
  return rows;
}

async function refundStep(processor: Processor, attempt: AttemptRef, card: string, add: (row: StepRow) => void) {
  const refund = attempt.paymentRef
    ? await processor.refund?.({ refundId: `re_verify_${newId()}`, attempt, amount: 1000 })
    : undefined;
  const obolus = refund ? `${refund.kind}${'ref' in refund && refund.ref ? ` ${refund.ref}` : ''}` : 'not sent';
  const agrees = refund?.kind === 'succeeded' || refund?.kind === 'pending';
  add({
    step: 'refund 10.00 of it',
    card,
    answered: obolus,
    obolus: refund?.kind ?? 'not sent',
    expected: 'succeeded|pending',
    agrees,
  });
}

async function voidStep(processor: Processor, card: string, add: (row: StepRow) => void) {
  const held = await processor.authorize(request(card, { capture: 'manual' }));
  const paymentRef = held.kind === 'approved' ? held.refs?.payment : undefined;
  const voided = paymentRef
    ? await processor.voidAuthorization?.({ paymentRef, key: `void_verify_${newId()}` })
    : undefined;
  const obolus = `${read(held)}; void ${voided?.kind ?? 'not sent'}`;
  const authorized = held.kind === 'approved' && held.funds === 'authorized';
  const done = authorized && (voided?.kind === 'succeeded' || voided?.kind === 'pending');
  const answered = `${said(held)}; ${voided && 'ref' in voided ? voided.ref : 'no void'}`;
  add({
    step: 'void an authorization',
    card,
    answered,
    obolus,
    expected: 'approved (authorized); void succeeded|pending',
    agrees: done,
  });
}

/** The approval found again by our reference alone, as the reconciler finds a lost answer. */
async function lookupStep(
  processor: Processor,
  attempt: AttemptRef,
  lagMs: number,
  wait: (ms: number) => Promise<void>,
  add: (row: StepRow) => void,
) {
  const until = Date.now() + lagMs;
  let found: AuthorizeOutcome | null = null;
  for (;;) {
    found = (await processor.lookup?.({ attemptId: attempt.attemptId, paymentRef: null })) ?? null;
    if (found || Date.now() > until) break;
    await wait(5000);
  }
  const same = found?.kind === 'approved' && found.refs?.payment === attempt.paymentRef;
  add({
    step: 'lookup by reference',
    card: '',
    answered: found && 'refs' in found ? (found.refs?.payment ?? '') : 'nothing found',
    obolus: read(found),
    expected: "approved: the approve step's payment",
    agrees: same,
  });
}

const WIDEST = 48;
const cut = (text: string) => (text.length > WIDEST ? `${text.slice(0, WIDEST - 1)}…` : text);

/** The rows as a table for a terminal, then what to check by hand. */
export function tableOf(rows: StepRow[], plan: VerifyPlan): string {
  const head = ['step', 'card', 'acquirer answered', 'Obolus reads', 'expected', 'agrees'];
  const cells = rows.map((r) => [r.step, r.card, r.answered, r.obolus, r.expected, agreesWord(r.agrees)].map(cut));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const table = [line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
  const byHand = plan.byHand.map((check) => `  - ${check.step}: ${check.what}`);
  return [...table, '', `To check by hand in your ${plan.acquirer} dashboard:`, ...byHand].join('\n');
}

export const agreesWord = (agrees: boolean | null) => (agrees === null ? 'by hand' : agrees ? 'yes' : 'NO');
