import { describe, expect, it } from 'vitest';
import { readCheckoutNotice } from '../src/connectors/checkout/notices.ts';
import { outcomeOfPayment, standingOf } from '../src/connectors/checkout/outcomes.ts';
import type { CkoPayment } from '../src/connectors/checkout/wire.ts';
import { ckoSignature } from '../src/dev/checkout-double/server.ts';

/** What Checkout.com's statuses, 3-D Secure results and events mean (decisions 0194 to 0196): pure mappings. */

const payment = (over: Partial<CkoPayment>): CkoPayment => ({
  id: 'pay_aaaaaaaaaaaaaaaaaaaaaaaaaa',
  status: 'Authorized',
  amount: 2500,
  currency: 'USD',
  response_code: '10000',
  ...over,
});

describe('Checkout.com statuses', () => {
  it.each([
    ['Authorized', 'authorized'],
    ['Captured', 'captured'],
    ['Paid', 'captured'],
    ['Partially Refunded', 'captured'],
  ] as const)('%s is an approval (%s)', (status, funds) => {
    expect(outcomeOfPayment(payment({ status }))).toMatchObject({ kind: 'approved', funds });
  });

  it.each(['Cancelled', 'Canceled', 'Voided', 'Expired'] as const)('%s: nothing was taken', (status) => {
    expect(outcomeOfPayment(payment({ status }))).toMatchObject({ kind: 'error' });
  });

  it('a payment read by GET has no response_code at the top: its Authorization action has it', () => {
    const details = payment({
      status: 'Declined',
      response_code: undefined,
      actions: [{ id: 'act_x', type: 'Authorization', response_code: '20051' }],
    });
    expect(outcomeOfPayment(details)).toMatchObject({ kind: 'declined', code: 'insufficient_funds' });
  });

  it('Pending with a redirect is a challenge; without one, or once back from it, unknown', () => {
    const pending = payment({ status: 'Pending', _links: { redirect: { href: 'https://issuer.example/3ds' } } });
    expect(outcomeOfPayment(pending)).toMatchObject({ kind: 'challenge', redirectUrl: 'https://issuer.example/3ds' });
    expect(outcomeOfPayment(pending, true).kind).toBe('unknown');
    expect(outcomeOfPayment(payment({ status: 'Pending' })).kind).toBe('unknown');
  });

  it('of several payments for one reference (newest first), the first approval stands; later approvals are duplicates', () => {
    const first = payment({ id: 'pay_first' });
    const declined = payment({ id: 'pay_declined', status: 'Declined' });
    const second = payment({ id: 'pay_second', status: 'Captured' });
    expect(standingOf([second, declined, first])).toEqual({ payment: first, others: [second] });
    expect(standingOf([declined])).toEqual({ payment: declined, others: [] });
  });
});

describe('3-D Secure results: only N and R fail; an issuer decline keeps its own code', () => {
  it.each([
    ['Y', 'frictionless'],
    ['A', 'frictionless'],
  ])('%s with an approval: %s', (response, threeDS) => {
    const secure = { enrolled: 'Y', authentication_response: response };
    expect(outcomeOfPayment(payment({ '3ds': secure }))).toMatchObject({ kind: 'approved', threeDS });
  });

  it('a card not enrolled, charged without authentication (attempt_n3d): approved, not_required', () => {
    const secure = { enrolled: 'N', downgraded: true };
    expect(outcomeOfPayment(payment({ '3ds': secure }))).toMatchObject({ kind: 'approved', threeDS: 'not_required' });
  });

  it.each(['N', 'R'])('%s with a decline: authentication_failed', (response) => {
    const declined = payment({
      status: 'Declined',
      response_code: '20151',
      '3ds': { authentication_response: response },
    });
    expect(outcomeOfPayment(declined)).toMatchObject({ kind: 'declined', code: 'authentication_failed' });
  });

  it.each(['Y', 'A', 'U', undefined])('authenticated (%s), then insufficient funds: insufficient_funds', (response) => {
    const declined = payment({
      status: 'Declined',
      response_code: '20051',
      '3ds': { enrolled: 'Y', ...(response ? { authentication_response: response } : {}) },
    });
    expect(outcomeOfPayment(declined)).toMatchObject({ kind: 'declined', code: 'insufficient_funds' });
  });

  it('20150 (the card does no 3-D Secure) is a plain decline; 20151 a failed authentication', () => {
    expect(outcomeOfPayment(payment({ status: 'Declined', response_code: '20150' }))).toMatchObject({
      code: 'card_declined',
    });
    expect(outcomeOfPayment(payment({ status: 'Declined', response_code: '20151' }))).toMatchObject({
      code: 'authentication_failed',
    });
  });
});

describe('Checkout.com events: only documented names', () => {
  const SECRET = 'outcomes-test-secret-0000';
  const read = (type: string, data: Record<string, unknown>) => {
    const body = JSON.stringify({
      id: 'evt_aaaaaaaaaaaaaaaaaaaaaaaaaa',
      type,
      created_on: '2026-01-01T00:00:00Z',
      data,
    });
    return readCheckoutNotice(Buffer.from(body), ckoSignature(body, SECRET), SECRET);
  };
  const dispute = { id: 'dsp_x', payment_id: 'pay_paid', amount: 2500, currency: 'USD' };

  it.each([
    ['dispute_evidence_required', 'opened'],
    ['dispute_won', 'won'],
    ['dispute_canceled', 'won'],
    ['dispute_lost', 'lost'],
    ['dispute_expired', 'lost'],
    ['dispute_resolved', 'lost'],
  ])('%s: the dispute %s', (type, stage) => {
    expect(read(type, dispute)).toMatchObject({ kind: 'dispute', paymentRef: 'pay_paid', stage });
  });

  it('dispute_received is no Checkout.com event: acknowledged and ignored', () => {
    expect(read('dispute_received', dispute)).toMatchObject({ kind: 'ignored' });
  });

  it.each(['payment_canceled', 'payment_cancelled'])('%s reads as nothing taken', (type) => {
    expect(read(type, { id: 'pay_x', reference: 'a'.repeat(24) })).toMatchObject({
      kind: 'payment',
      outcome: { kind: 'error' },
    });
  });

  it('payment_refund_pending (no reference) names the payment and the refund action: pending', () => {
    expect(read('payment_refund_pending', { id: 'pay_x', action_id: 'act_r', amount: 700, currency: 'USD' })).toEqual({
      kind: 'refund',
      eventId: 'evt_aaaaaaaaaaaaaaaaaaaaaaaaaa',
      paymentRef: 'pay_x',
      refundId: null,
      ref: 'act_r',
      status: 'pending',
      amount: 700,
    });
  });
});
