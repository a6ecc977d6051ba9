import type { FastifyInstance } from 'fastify';
import { PAYMENT_STATUS_TEXT, paymentStatus } from '../../domain/dashboard/payment-list.ts';
import { CANCELLATION_REASONS, type CancellationReason, type PaymentIntent } from '../../domain/intents.ts';
import { cancelPaymentIntent } from '../../domain/payments/cancel.ts';
import { capturePaymentIntent } from '../../domain/payments/capture.ts';
import type { Services } from '../../services.ts';
import { paymentDeps } from '../../services.ts';
import { field, Refusal, requireActive, type Signed } from './context.ts';
import { money, when } from './format.ts';
import { createForm, page } from './layout.ts';
import { html, type Markup } from './markup.ts';
import { minorUnitsOf } from './payment-filters.ts';
import { getPage, postCreate } from './routes.ts';

type Id = { id: string };

/** Statuses a merchant may cancel from (decision 0240). */
const CANCELABLE: readonly string[] = ['requires_payment', 'failed', 'requires_capture'];

const REASON_TEXT: Record<(typeof CANCELLATION_REASONS)[number], string> = {
  requested_by_customer: 'Requested by the customer',
  duplicate: 'Duplicate',
  fraudulent: 'Fraudulent',
  abandoned: 'Abandoned',
};

/** Capture and Cancel on a payment's page: each opens its confirmation step (decisions 0240, 0241). */
export function changeActions(intent: PaymentIntent): Markup {
  const id = intent.id;
  const capture =
    intent.status === 'requires_capture'
      ? html`<form method="get" action="/dashboard/payments/${id}/capture" class="fields"><label>Capture amount (up to ${money(intent.amount)})<input name="amount" inputmode="decimal" value="${(intent.amount / 100).toFixed(2)}" required></label><button type="submit">Capture…</button></form>`
      : '';
  const cancel = CANCELABLE.includes(intent.status)
    ? html`<form method="get" action="/dashboard/payments/${id}/cancel" class="inline"><button class="danger" type="submit">Cancel payment…</button></form>`
    : '';
  return html`${capture}${cancel}`;
}

async function intentOf(services: Services, signed: Signed, id: string): Promise<PaymentIntent> {
  const intent = await services.repos.intents.find(signed.account.id, id);
  if (!intent) throw new Refusal(404, 'No such payment.');
  return intent;
}

const reasonOf = (text: string): CancellationReason | null =>
  (CANCELLATION_REASONS as readonly string[]).includes(text) ? (text as CancellationReason) : null;

/** The confirmation steps of a capture and a cancel, and the changes themselves (one each however often posted). */
export function registerPaymentChanges(scope: FastifyInstance, services: Services): void {
  getPage<Id>(scope, '/payments/:id/capture', async (signed, request) => {
    const amount = minorUnitsOf(String(request.query.amount ?? ''), 'amount');
    const intent = await intentOf(services, signed, request.params.id);
    const id = intent.id;
    return page(signed, {
      title: 'Confirm the capture',
      section: '/dashboard/payments',
      body: html`<section class="panel"><p>Capture <strong>${money(amount)}</strong> of the ${money(intent.amount)} authorized? The shopper is charged that much${amount < intent.amount ? html`; the other ${money(intent.amount - amount)} is released` : ''}. This cannot be undone.</p>
${createForm(signed, `/dashboard/payments/${id}/capture`, html`<input type="hidden" name="amount" value="${amount}"><button type="submit">Confirm capture of ${money(amount)}</button> <a href="/dashboard/payments/${id}">Back</a>`)}</section>`,
    });
  });

  postCreate<Id>(scope, services, '/payments/:id/capture', async (signed, request) => {
    requireActive(signed);
    const amount = Number(field(request, 'amount'));
    const intent = await capturePaymentIntent(
      paymentDeps(services),
      signed.account,
      request.params.id,
      Number.isSafeInteger(amount) && amount > 0 ? amount : undefined,
    );
    return { result: `/dashboard/payments/${intent.id}?done=capture` };
  });

  getPage<Id>(scope, '/payments/:id/cancel', async (signed, request) => {
    const intent = await intentOf(services, signed, request.params.id);
    const id = intent.id;
    const status = PAYMENT_STATUS_TEXT[paymentStatus(intent, undefined)];
    const held = intent.status === 'requires_capture';
    const options = CANCELLATION_REASONS.map((r) => html`<option value="${r}">${REASON_TEXT[r]}</option>`);
    return page(signed, {
      title: 'Confirm the cancel',
      section: '/dashboard/payments',
      body: html`<section class="panel"><p>Cancel this payment of <strong>${money(intent.amount)}</strong> (${status}, created ${when(intent.createdAt)})? ${held ? 'The authorization is released: the shopper is not charged.' : 'Its checkout can no longer be paid.'} This cannot be undone.</p>
${createForm(signed, `/dashboard/payments/${id}/cancel`, html`<label>Reason <select name="reason"><option value="">None</option>${options}</select></label> <button class="danger" type="submit">Confirm cancel</button> <a href="/dashboard/payments/${id}">Back</a>`, 'fields')}</section>`,
    });
  });

  postCreate<Id>(scope, services, '/payments/:id/cancel', async (signed, request) => {
    requireActive(signed);
    const intent = await cancelPaymentIntent(
      paymentDeps(services),
      signed.account,
      request.params.id,
      reasonOf(field(request, 'reason')),
    );
    return { result: `/dashboard/payments/${intent.id}?done=cancel` };
  });
}
