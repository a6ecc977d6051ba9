import { describe, expect, it } from 'vitest';
import type { Exchange } from '../src/dev/double-http.ts';
import {
  checkoutEventViolations,
  checkoutViolations,
  OPEN_SCHEMAS,
  RAW_CARD_EXEMPTION,
  stripeEventViolations,
  stripeViolations,
} from './support/acquirer-contract.ts';

/** The contract checks themselves (decision 0190): each refuses what the acquirers' definitions do not allow. */

const exchange = (over: Partial<Exchange>): Exchange => ({
  method: 'POST',
  path: '/payments',
  query: new URLSearchParams(),
  headers: { authorization: 'Bearer sk_x' },
  body: '',
  status: 0,
  answer: '',
  ...over,
});

const stripeCreate = (extra: string) =>
  exchange({
    path: '/v1/payment_intents',
    body: `amount=2500&currency=usd&confirm=true&payment_method_data[type]=card&payment_method_data[card][number]=4242424242424242${extra}`,
  });

describe('Stripe requests', () => {
  it(`the one exemption is ${RAW_CARD_EXEMPTION}`, () => {
    expect(stripeViolations(stripeCreate('&payment_method_data[billing_details][name]=Ada'))).toEqual([]);
  });

  it('a parameter Stripe does not define, or of the wrong type, is a violation', () => {
    expect(stripeViolations(stripeCreate('&card_number=4242424242424242')).join()).toMatch(/additional properties/);
    expect(stripeViolations(stripeCreate(`&statement_descriptor_suffix=${'x'.repeat(23)}`)).join()).toMatch(/22/);
    expect(stripeViolations(exchange({ path: '/v1/charges' })).join()).toMatch(/not an operation/);
  });

  it('an answer not shaped as the document says is a violation; other API resources are left open', () => {
    const answer = JSON.stringify({ id: 're_1', object: 'refund', amount: 100 });
    const refund = exchange({ path: '/v1/refunds', body: 'payment_intent=pi_1&amount=100', status: 200, answer });
    expect(stripeViolations(refund).join()).toMatch(/required property 'created'/);
    expect(OPEN_SCHEMAS.stripe).toContain('customer');
  });

  it('an event of a type Stripe does not list is a violation', () => {
    const event = {
      id: 'evt_1',
      object: 'event',
      created: 1,
      livemode: true,
      pending_webhooks: 1,
      data: { object: {} },
    };
    expect(stripeEventViolations({ ...event, type: 'payment_intent.teleported' }).join()).toMatch(/not an event type/);
  });
});

describe('Checkout.com exchanges', () => {
  const payment = {
    source: { type: 'card', number: '4242424242424242', expiry_month: 12, expiry_year: 2034 },
    amount: 100,
    currency: 'USD',
    processing_channel_id: 'pc_x',
  };

  it('409 is not a documented answer; 429 is (a concurrent duplicate)', () => {
    const body = JSON.stringify(payment);
    expect(checkoutViolations(exchange({ body, status: 409 })).join()).toMatch(/not a documented status/);
    expect(checkoutViolations(exchange({ body, status: 429, answer: '{"error_type":"too_many_requests"}' }))).toEqual(
      [],
    );
  });

  it('a request without its processing channel, or a 201 without its _links, is a violation', () => {
    const { processing_channel_id: _, ...noChannel } = payment;
    expect(checkoutViolations(exchange({ body: JSON.stringify(noChannel) })).join()).toMatch(/processing_channel_id/);
    const answer = JSON.stringify({ id: 'pay_x', status: 'Authorized' });
    expect(checkoutViolations(exchange({ body: JSON.stringify(payment), status: 201, answer })).join()).toMatch(
      /required property/,
    );
  });

  it('dispute_received is no documented event; payment_refunded needs the refund action id', () => {
    const envelope = { id: `evt_${'a'.repeat(26)}`, created_on: '2026-01-01T00:00:00Z' };
    const dispute = { id: 'dsp_1', payment_id: `pay_${'a'.repeat(26)}`, amount: 1, currency: 'USD' };
    expect(checkoutEventViolations({ ...envelope, type: 'dispute_received', data: dispute }).join()).toMatch(
      /not an event type/,
    );
    const refund = { id: `pay_${'a'.repeat(26)}`, amount: 1, currency: 'USD', processed_on: '2026-01-01T00:00:00Z' };
    expect(checkoutEventViolations({ ...envelope, type: 'payment_refunded', data: refund }).join()).toMatch(
      /action_id/,
    );
  });
});
