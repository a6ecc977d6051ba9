import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { WebhookSender } from '../../src/dev/stripe-double/webhooks.ts';
import type { AuthorizeOutcome, AuthorizeRequest, Processor } from '../../src/domain/payments/ports.ts';
import { NoticeRejected } from '../../src/domain/payments/ports.ts';
import { until } from './until.ts';

/**
 * What every live connector must do, whatever its acquirer (decisions 0041, 0101). A
 * connector's test file gives a harness over its acquirer's double; the same suite then
 * runs for Stripe and Checkout.com, and for any third connector.
 */
export type HarnessFault =
  | 'delay_after_commit'
  | 'drop_after_commit'
  | 'error_500_before'
  | 'error_500_after'
  | 'conflict_409'
  | 'rate_limit_429';

export interface ConnectorHarness {
  processor: () => Processor;
  /** Card numbers the double approves, declines for insufficient funds, challenges with 3-D Secure. */
  cards: { approve: string; insufficientFunds: string; lostCard: string; threeDS: string; oddIssuer: string };
  /** Faults the double can inject into the next authorization. */
  arm(fault: HarnessFault, times?: number): Promise<void>;
  /** Answers the acquirer never gives (Checkout.com documents no 409): not armed. */
  impossible?: readonly HarnessFault[];
  /** How many payments the acquirer holds for an attempt: never more than one. */
  paymentsFor(attemptId: string): number;
  /** The shopper passes or fails the issuer's page of a challenge. */
  answerChallenge(redirectUrl: string, passed: boolean): Promise<void>;
  reset(): Promise<void>;
  /** The double's webhook sender, the secret the connector checks, and the acquirer's event types. */
  webhooks: WebhookSender;
  webhookSecret: string;
  events: { approved: string; refund: string; dispute: string };
  /** The card network opens a dispute on the payment. */
  dispute(paymentRef: string): void;
}

export const newAttemptId = () => randomBytes(12).toString('hex');

export function authorizeRequest(number: string, over: Partial<AuthorizeRequest> = {}): AuthorizeRequest {
  return {
    attemptId: newAttemptId(),
    intentId: newAttemptId(),
    amount: 2500,
    currency: 'USD',
    mode: 'live',
    card: { number, expMonth: 12, expYear: 2034, cvc: '123', name: 'Ada Lovelace' },
    descriptor: 'OBOLUS SHOP',
    returnUrl: 'http://127.0.0.1:9/embed/v1/challenge/chl_x/return',
    ...over,
  };
}

/** The shopper on a double's issuer page (src/dev/double-http.ts): authenticates or fails; where they are sent back. */
export async function answerIssuerPage(redirectUrl: string, passed: boolean): Promise<URL> {
  const res = await fetch(redirectUrl, {
    method: 'POST',
    body: new URLSearchParams({ action: passed ? 'complete' : 'fail' }),
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  return new URL(res.headers.get('location') ?? '');
}

const kindOf = (outcome: AuthorizeOutcome | null) => outcome?.kind ?? null;

export function connectorContract(name: string, h: ConnectorHarness): void {
  /** The last event of a type the double sent, as the connector would receive it. */
  const noticeOf = (type: string) => {
    const event = h.webhooks.events.findLast((e) => e.type === type);
    if (!event) throw new Error(`the double sent no ${type}`);
    const { body, headers } = h.webhooks.signed(event, h.webhookSecret);
    const header = h.processor().noticeSignatureHeader ?? 'stripe-signature';
    return { raw: Buffer.from(body), signature: headers[header] ?? '', event };
  };
  const approvedPayment = async () => {
    const request = authorizeRequest(h.cards.approve);
    const outcome = await h.processor().authorize(request);
    return { request, paymentRef: outcome.kind === 'approved' ? (outcome.refs?.payment ?? '') : '' };
  };

  describe(`${name}: the live connector contract`, () => {
    beforeEach(() => h.reset());

    it('approves, with the card details and the acquirer references', async () => {
      const request = authorizeRequest(h.cards.approve);
      const outcome = await h.processor().authorize(request);
      expect(outcome).toMatchObject({ kind: 'approved', issuer: { brand: 'Visa', country: 'US' } });
      expect(outcome.kind === 'approved' && outcome.refs?.payment).toBeTruthy();
      expect(h.paymentsFor(request.attemptId)).toBe(1);
    });

    it('an approval with odd issuer details is still an approval', async () => {
      const outcome = await h.processor().authorize(authorizeRequest(h.cards.oddIssuer));
      expect(outcome.kind).toBe('approved');
    });

    it('declines with our decline codes; reasons that help card testers become card_declined', async () => {
      expect(await h.processor().authorize(authorizeRequest(h.cards.insufficientFunds))).toMatchObject({
        kind: 'declined',
        code: 'insufficient_funds',
      });
      expect(await h.processor().authorize(authorizeRequest(h.cards.lostCard))).toMatchObject({
        kind: 'declined',
        code: 'card_declined',
      });
    });

    it('never sends sandbox money', async () => {
      const request = authorizeRequest(h.cards.approve, { mode: 'sandbox' });
      expect(kindOf(await h.processor().authorize(request))).toBe('error');
      expect(h.paymentsFor(request.attemptId)).toBe(0);
    });

    it.each([true, false])(
      '3-D Secure: a challenge to frame, then the result once the shopper is back (passed: %s)',
      async (passed) => {
        const outcome = await h.processor().authorize(authorizeRequest(h.cards.threeDS));
        if (outcome.kind !== 'challenge' || !outcome.redirectUrl)
          throw new Error(`expected a challenge, got ${outcome.kind}`);
        await h.answerChallenge(outcome.redirectUrl, passed);
        const done = await h.processor().completeChallenge(outcome.challengeRef, {});
        expect(done).toMatchObject(
          passed
            ? { kind: 'approved', threeDS: 'challenge_passed' }
            : { kind: 'declined', code: 'authentication_failed', threeDS: 'challenge_failed' },
        );
      },
    );

    // Lost twice: Stripe replays its answer (a 500 included), so the attempt stays unknown; Checkout.com
    // keeps no 5xx, so the connector looks the payment up by reference and finds it. Never declined.
    it.each(
      (['delay_after_commit', 'drop_after_commit', 'error_500_after'] as const).filter(
        (f) => !h.impossible?.includes(f),
      ),
    )('%s twice: never declined; one payment at most; the lookup then says approved', async (fault) => {
      await h.arm(fault, 2);
      const request = authorizeRequest(h.cards.approve);
      expect(kindOf(await h.processor().authorize(request))).toMatch(/^(unknown|approved)$/);
      expect(h.paymentsFor(request.attemptId)).toBe(1);
      await h.reset();
      const found = await h.processor().lookup?.({ attemptId: request.attemptId, paymentRef: null });
      expect(kindOf(found ?? null)).toBe('approved');
    });

    it('rate_limit_429 twice: unknown (never resent at once), nothing charged; the lookup then finds nothing', async () => {
      await h.arm('rate_limit_429', 2);
      const request = authorizeRequest(h.cards.approve);
      expect(kindOf(await h.processor().authorize(request))).toBe('unknown');
      expect(h.paymentsFor(request.attemptId)).toBe(0);
      await h.reset();
      expect(await h.processor().lookup?.({ attemptId: request.attemptId, paymentRef: null })).toBeNull();
    });

    it.each(
      (['drop_after_commit', 'error_500_before', 'conflict_409'] as const).filter((f) => !h.impossible?.includes(f)),
    )('%s once: the retry with the same idempotency key, or the lookup, settles it: one payment', async (fault) => {
      await h.arm(fault, 1);
      const request = authorizeRequest(h.cards.approve);
      expect(kindOf(await h.processor().authorize(request))).toBe('approved');
      expect(h.paymentsFor(request.attemptId)).toBe(1);
    });

    it('manual capture: approved as authorized only, voided once (the same key answers the same), then nothing is taken', async () => {
      const request = authorizeRequest(h.cards.approve, { capture: 'manual' });
      const approved = await h.processor().authorize(request);
      expect(approved).toMatchObject({ kind: 'approved', funds: 'authorized' });
      const paymentRef = approved.kind === 'approved' ? (approved.refs?.payment ?? '') : '';
      const voided = await h.processor().voidAuthorization?.({ paymentRef, key: `void_${request.attemptId}` });
      expect(voided).toMatchObject({ kind: expect.stringMatching(/^(succeeded|pending)$/), method: 'void' });
      expect(await h.processor().voidAuthorization?.({ paymentRef, key: `void_${request.attemptId}` })).toEqual(voided);
      expect(await h.processor().paymentsOf?.({ attemptId: request.attemptId, paymentRef })).toEqual([
        { payment: paymentRef, approved: false, funds: null },
      ]);
    });

    it('manual capture in part: captured once (the same key answers the same), the rest released: only the captured part refunds, and no void follows', async () => {
      const request = authorizeRequest(h.cards.approve, { capture: 'manual' });
      const approved = await h.processor().authorize(request);
      expect(approved).toMatchObject({ kind: 'approved', funds: 'authorized' });
      const paymentRef = approved.kind === 'approved' ? (approved.refs?.payment ?? '') : '';
      const key = `capture_${request.attemptId}`;
      const captured = await h.processor().capture?.({ paymentRef, amount: 1500, key });
      expect(captured).toMatchObject({ kind: 'succeeded' });
      expect(await h.processor().capture?.({ paymentRef, amount: 1500, key })).toEqual(captured);
      const attempt = { attemptId: request.attemptId, paymentRef };
      expect(await h.processor().paymentsOf?.(attempt)).toEqual([
        { payment: paymentRef, approved: true, funds: 'captured' },
      ]);
      const refund = (refundId: string, amount: number) => h.processor().refund?.({ refundId, attempt, amount });
      expect(await refund(`re_over_${request.attemptId}`, 1501)).toMatchObject({ kind: 'failed' });
      expect(await refund(`re_all_${request.attemptId}`, 1500)).toMatchObject({
        kind: expect.stringMatching(/^(succeeded|pending)$/),
      });
      expect(await h.processor().voidAuthorization?.({ paymentRef, key: `void_${request.attemptId}` })).toMatchObject({
        kind: 'failed',
      });
    });

    it('manual capture of the whole authorization; a second capture under another key is refused', async () => {
      const request = authorizeRequest(h.cards.approve, { capture: 'manual' });
      const approved = await h.processor().authorize(request);
      const paymentRef = approved.kind === 'approved' ? (approved.refs?.payment ?? '') : '';
      const whole = await h.processor().capture?.({ paymentRef, amount: 2500, key: `capture_${request.attemptId}` });
      expect(whole).toMatchObject({ kind: 'succeeded' });
      expect(
        await h.processor().capture?.({ paymentRef, amount: 2500, key: `again_${request.attemptId}` }),
      ).toMatchObject({
        kind: 'failed',
      });
    });

    it('a capture of more than the authorization is refused, and the authorization stays voidable', async () => {
      const request = authorizeRequest(h.cards.approve, { capture: 'manual' });
      const approved = await h.processor().authorize(request);
      const paymentRef = approved.kind === 'approved' ? (approved.refs?.payment ?? '') : '';
      expect(
        await h.processor().capture?.({ paymentRef, amount: 2501, key: `capture_${request.attemptId}` }),
      ).toMatchObject({
        kind: 'failed',
      });
      expect(await h.processor().voidAuthorization?.({ paymentRef, key: `void_${request.attemptId}` })).toMatchObject({
        method: 'void',
      });
    });

    it('a payment given back: voided while authorized, refunded once captured, then nothing more', async () => {
      const held = authorizeRequest(h.cards.approve, { capture: 'manual' });
      const authorized = await h.processor().authorize(held);
      const heldRef = authorized.kind === 'approved' ? (authorized.refs?.payment ?? '') : '';
      expect(await h.processor().reverse?.({ attemptId: held.attemptId, paymentRef: heldRef })).toMatchObject({
        method: 'void',
      });
      const { request, paymentRef } = await approvedPayment();
      // Checkout.com captures a `capture: true` payment a moment after approving it, not in the
      // same answer: read until it has (the double's timer can lose the race to the next request).
      await expect
        .poll(() => h.processor().paymentsOf?.({ attemptId: request.attemptId, paymentRef }))
        .toEqual([{ payment: paymentRef, approved: true, funds: 'captured' }]);
      const reversed = await h.processor().reverse?.({ attemptId: request.attemptId, paymentRef });
      expect(reversed).toMatchObject({ kind: expect.stringMatching(/^(succeeded|pending)$/), method: 'refund' });
      expect(
        await h
          .processor()
          .refund?.({ refundId: 're_after', attempt: { attemptId: request.attemptId, paymentRef }, amount: 1 }),
      ).toMatchObject({
        kind: 'failed',
      });
    });

    it('a declined payment looked up later is still declined (forward only)', async () => {
      const request = authorizeRequest(h.cards.insufficientFunds);
      await h.processor().authorize(request);
      const found = await h.processor().lookup?.({ attemptId: request.attemptId, paymentRef: null });
      expect(found).toMatchObject({ kind: 'declined', code: 'insufficient_funds' });
    });

    it('refunds part then the rest, each once however often asked; then refuses more', async () => {
      const request = authorizeRequest(h.cards.approve);
      const approved = await h.processor().authorize(request);
      const paymentRef = approved.kind === 'approved' ? (approved.refs?.payment ?? null) : null;
      const attempt = { attemptId: request.attemptId, paymentRef };
      const refund = (refundId: string, amount: number) => h.processor().refund?.({ refundId, attempt, amount });
      // Accepted: succeeded at once (Stripe) or pending until the acquirer's notice (Checkout.com).
      const accepted = { kind: expect.stringMatching(/^(succeeded|pending)$/), ref: expect.any(String) };
      const first = await refund('re_first', 1000);
      expect(first).toMatchObject(accepted);
      expect(await refund('re_first', 1000)).toEqual(first);
      expect(await refund('re_second', 1500)).toMatchObject(accepted);
      expect(await refund('re_third', 1)).toMatchObject({ kind: 'failed' });
    });

    it('notices: an approval reads as that attempt approved; a forged or altered one is refused', async () => {
      const { request, paymentRef } = await approvedPayment();
      const { raw, signature } = noticeOf(h.events.approved);
      expect(h.processor().readNotice?.(raw, signature)).toMatchObject({
        kind: 'payment',
        eventId: expect.any(String),
        attempt: { attemptId: request.attemptId, paymentRef },
        outcome: { kind: 'approved' },
      });
      const forged = signature.replace(/[0-9a-f]{8}$/, '00000000');
      expect(() => h.processor().readNotice?.(raw, forged)).toThrow(NoticeRejected);
      const altered = Buffer.from(raw.toString().replace(request.attemptId, newAttemptId()));
      expect(() => h.processor().readNotice?.(altered, signature)).toThrow(NoticeRejected);
      expect(() => h.processor().readNotice?.(raw, '')).toThrow(NoticeRejected);
    });

    it('notices: the same event twice reads the same (the domain drops the duplicate by its id)', async () => {
      await approvedPayment();
      const { raw, signature } = noticeOf(h.events.approved);
      expect(h.processor().readNotice?.(raw, signature)).toEqual(h.processor().readNotice?.(raw, signature));
    });

    it('notices: a dispute names the disputed payment', async () => {
      const { paymentRef } = await approvedPayment();
      h.dispute(paymentRef);
      const { raw, signature } = noticeOf(h.events.dispute);
      expect(h.processor().readNotice?.(raw, signature)).toMatchObject({ kind: 'dispute', paymentRef });
    });

    it("notices: a refund names the payment, the acquirer's id its refund call answered, and its state", async () => {
      const { request, paymentRef } = await approvedPayment();
      const refunded = await h
        .processor()
        .refund?.({ refundId: 're_notice', attempt: { attemptId: request.attemptId, paymentRef }, amount: 700 });
      // Checkout.com sends its refund events a moment after the 202.
      await until(() => h.webhooks.events.some((e) => e.type === h.events.refund));
      const { raw, signature } = noticeOf(h.events.refund);
      expect(h.processor().readNotice?.(raw, signature)).toMatchObject({
        kind: 'refund',
        paymentRef,
        ref: refunded?.kind === 'pending' || refunded?.kind === 'succeeded' ? refunded.ref : 'no ref',
        refundId: expect.toSatisfy((id: string | null) => id === null || id === 're_notice'),
        status: expect.stringMatching(/^(succeeded|pending)$/),
      });
    });
  });
}
