import type { FastifyInstance } from 'fastify';
import { simulateChargeback } from '../../domain/chargebacks.ts';
import { type PaymentDetail, paymentDetail, paymentOf } from '../../domain/dashboard/payment-detail.ts';
import { PAYMENT_STATUS_TEXT } from '../../domain/dashboard/payment-list.ts';
import { ApiError } from '../../domain/errors.ts';
import { refundTransaction } from '../../domain/refunds.ts';
import {
  DISPUTABLE_STATUSES,
  maskedCard,
  REFUNDABLE_STATUSES,
  type Transaction,
  TX_STATUS_TEXT,
} from '../../domain/transactions.ts';
import type { Services } from '../../services.ts';
import { refundDeps } from '../../services.ts';
import { field, requireActive, type Signed, seeOther } from './context.ts';
import { eventWithJson } from './event-json.ts';
import { money, when } from './format.ts';
import { createForm, page, postForm } from './layout.ts';
import { html, type Markup } from './markup.ts';
import { changeActions } from './payment-changes.ts';
import { minorUnitsOf } from './payment-filters.ts';
import { attemptStatusClass, paymentStatusClass } from './payments.ts';
import { getPage, postAction, postCreate } from './routes.ts';
import { dashboardAuditBy } from './security.ts';

type Id = { id: string };

const OPEN: readonly string[] = ['requires_payment', 'failed'];
const DONE: Record<string, string> = {
  refund: 'Refund made.',
  capture: 'Payment captured.',
  cancel: 'Payment canceled.',
};

function facts(d: PaymentDetail): Markup {
  const { intent, paid } = d;
  const last = d.attempts[d.attempts.length - 1];
  const card = paid ?? last;
  const metadata = Object.entries(intent.metadata);
  return html`<dl class="facts">
<dt>Status</dt><dd class="${paymentStatusClass(d.status)}">${PAYMENT_STATUS_TEXT[d.status]}${paid?.chargeback && d.status !== 'chargeback' ? ' · chargeback' : ''}</dd>
<dt>Amount</dt><dd>${money(intent.amount, intent.currency)}</dd>
${paid ? html`<dt>Refunded</dt><dd>${money(paid.refundedAmount, paid.currency)}</dd><dt>Fee</dt><dd>${money(paid.feeAmount, paid.currency)}</dd>` : ''}
${card ? html`<dt>Card</dt><dd class="mono">${card.card.brand} ${maskedCard(card.card)}</dd><dt>Cardholder</dt><dd>${card.cardholder}</dd>` : html`<dt>Card</dt><dd>No attempt to pay yet</dd>`}
<dt>Mode</dt><dd>${intent.mode}</dd><dt>Capture</dt><dd>${intent.captureMethod}${intent.captureBefore ? html`, before ${when(intent.captureBefore)}` : ''}</dd>
${intent.canceledAt ? html`<dt>Canceled</dt><dd>${when(intent.canceledAt)}${intent.cancellationReason ? html` (${intent.cancellationReason})` : ''}</dd>` : ''}<dt>Payment intent</dt><dd class="mono">${intent.id}</dd>
${paid ? html`<dt>Transaction</dt><dd class="mono">${paid.id}</dd>` : ''}
<dt>Created</dt><dd>${when(intent.createdAt)}</dd>${OPEN.includes(intent.status) ? html`<dt>Expires</dt><dd>${when(intent.expiresAt)}</dd>` : ''}
<dt>Reference</dt><dd>${intent.reference ?? '—'}</dd><dt>External id</dt><dd>${intent.externalid ?? '—'}</dd>
<dt>Description</dt><dd>${intent.description ?? '—'}</dd>${intent.productId ? html`<dt>Product</dt><dd><a href="/dashboard/products/${intent.productId}">${intent.productId}</a></dd>` : ''}
${metadata.map(([k, v]) => html`<dt>Metadata: ${k}</dt><dd>${v}</dd>`)}</dl>`;
}

const table = (label: string, head: Markup, rows: Markup[], none = 'None.') =>
  rows.length === 0
    ? html`<p class="muted">${none}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${label}"><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;

const attemptRow = (a: Transaction) =>
  html`<tr id="attempt-${a.id}"><td>${when(a.createdAt)}</td><td class="${attemptStatusClass(a)}">${TX_STATUS_TEXT[a.status]}${a.chargeback && a.status !== 50 ? ' · chargeback' : ''}</td><td>${a.declineCode ?? ''}</td><td class="mono hide-narrow">${a.card.brand} ${maskedCard(a.card)}</td><td class="num hide-narrow">${money(a.feeAmount, a.currency)}</td><td class="mono hide-narrow">${a.id}</td></tr>`;

function history(d: PaymentDetail): Markup {
  return html`<h2>Attempts</h2>${table(
    'Attempts',
    html`<th>Created</th><th>Outcome</th><th>Decline code</th><th class="hide-narrow">Card</th><th class="num hide-narrow">Fee</th><th class="hide-narrow">Transaction</th>`,
    d.attempts.map(attemptRow),
    'No attempt to pay yet: the shopper has not submitted a card.',
  )}
<h2>Refunds</h2>${table(
    'Refunds',
    html`<th>Created</th><th class="num">Amount</th><th>Status</th><th>Id</th>`,
    d.refunds.map(
      (r) =>
        html`<tr><td>${when(r.createdAt)}</td><td class="num">${money(r.amount, r.currency)}</td><td>${r.status}</td><td class="mono">${r.id}</td></tr>`,
    ),
  )}
<h2>Timeline</h2>${table(
    'Timeline',
    html`<th>When</th><th>Event (open for its JSON)</th><th class="hide-narrow">Id</th>`,
    d.events.map(
      (e) =>
        html`<tr><td>${when(e.createdAt)}</td><td>${eventWithJson(e)}</td><td class="mono hide-narrow">${e.id}</td></tr>`,
    ),
  )}
<h2>Webhook deliveries</h2>${table(
    'Webhook deliveries',
    html`<th>When</th><th>Event</th><th>Endpoint</th><th>Result</th>`,
    d.webhookAttempts.map(
      (a) =>
        html`<tr><td>${when(a.attemptedAt)}</td><td>${a.eventType}</td><td class="mono">${a.url}</td><td class="${a.succeeded ? 'status-ok' : 'status-bad'}">${a.statusCode ?? a.error ?? 'no answer'}</td></tr>`,
    ),
  )}`;
}

function actions(signed: Signed, d: PaymentDetail): Markup {
  const changes = changeActions(d.intent);
  const tx = d.paid;
  if (!tx)
    return changes.toString() ? html`<section class="panel actions" aria-label="Actions">${changes}</section>` : html``;
  const left = tx.amount - tx.refundedAmount;
  const refund = REFUNDABLE_STATUSES.includes(tx.status)
    ? html`<form method="get" action="/dashboard/payments/${d.intent.id}/refund" class="fields"><label>Refund amount (up to ${money(left)})<input name="amount" inputmode="decimal" value="${(left / 100).toFixed(2)}" required></label><button type="submit">Refund…</button></form>`
    : '';
  const chargeback =
    tx.mode === 'sandbox' && !tx.chargeback && DISPUTABLE_STATUSES.includes(tx.status)
      ? postForm(
          signed,
          `/dashboard/payments/${d.intent.id}/chargeback`,
          html`<button class="danger" type="submit">Simulate a chargeback (sandbox)</button>`,
        )
      : '';
  if (!refund && !chargeback && !changes.toString()) return html``;
  return html`<section class="panel actions" aria-label="Actions">${changes}${refund}${chargeback}</section>`;
}

/** The attempt that captured this payment's money: what refunds and chargebacks act on. */
function paidAttempt(d: PaymentDetail): Transaction {
  if (!d.paid) {
    throw new ApiError(
      'transaction_not_refundable',
      `Nothing was paid on this payment yet: it is ${PAYMENT_STATUS_TEXT[d.status]}.`,
    );
  }
  return d.paid;
}

/**
 * A payment's page (a payment intent, any of its attempts' ids leads there), the refund's
 * confirmation step, the refund and the sandbox chargeback.
 */
export function registerPaymentPage(scope: FastifyInstance, services: Services): void {
  const detailOf = async (signed: Signed, id: string) => {
    const { intentId } = await paymentOf(services.repos, signed.account, id);
    return paymentDetail(services.repos, signed.account, intentId);
  };

  getPage<Id>(scope, '/payments/:id', async (signed, request, reply) => {
    const found = await paymentOf(services.repos, signed.account, request.params.id);
    if (found.transactionId) {
      // An attempt's id (from the API, a webhook, an old link): its payment's page, at that attempt.
      return seeOther(reply, `/dashboard/payments/${found.intentId}#attempt-${found.transactionId}`);
    }
    const detail = await paymentDetail(services.repos, signed.account, found.intentId);
    const said = DONE[String(request.query.done)];
    const done = said ? html`<p class="notice" role="status">${said}</p>` : '';
    return page(signed, {
      title: `Payment of ${money(detail.intent.amount)}`,
      section: '/dashboard/payments',
      body: html`${done}${actions(signed, detail)}<section class="panel">${facts(detail)}</section>${history(detail)}`,
    });
  });

  getPage<Id>(scope, '/payments/:id/refund', async (signed, request) => {
    const amount = minorUnitsOf(String(request.query.amount ?? ''), 'amount');
    const detail = await detailOf(signed, request.params.id);
    const tx = paidAttempt(detail);
    const id = detail.intent.id;
    return page(signed, {
      title: 'Confirm the refund',
      section: '/dashboard/payments',
      body: html`<section class="panel"><p>Refund <strong>${money(amount)}</strong> of the ${money(tx.amount)} paid by ${tx.cardholder}? The shopper gets the money back; this cannot be undone.</p>
${createForm(signed, `/dashboard/payments/${id}/refund`, html`<input type="hidden" name="amount" value="${amount}"><button type="submit">Confirm refund of ${money(amount)}</button> <a href="/dashboard/payments/${id}">Cancel</a>`)}</section>`,
    });
  });

  // Its one-time token makes a double-clicked or re-sent confirmation one refund (decision 0141).
  postCreate<Id>(scope, services, '/payments/:id/refund', async (signed, request) => {
    requireActive(signed);
    const detail = await detailOf(signed, request.params.id);
    const amount = Number(field(request, 'amount'));
    // Its audit event commits with the refund (decision 0205).
    await refundTransaction(
      refundDeps(services),
      services.clock,
      signed.account,
      paidAttempt(detail).id,
      { amount: Number.isSafeInteger(amount) && amount > 0 ? amount : -1 },
      undefined,
      dashboardAuditBy(signed, request),
    );
    return { result: `/dashboard/payments/${detail.intent.id}?done=refund` };
  });

  postAction<Id>(scope, '/payments/:id/chargeback', async (signed, request, reply) => {
    requireActive(signed);
    const detail = await detailOf(signed, request.params.id);
    await simulateChargeback(services.repos, services.clock, signed.account, paidAttempt(detail).id);
    return seeOther(reply, `/dashboard/payments/${detail.intent.id}`);
  });
}
