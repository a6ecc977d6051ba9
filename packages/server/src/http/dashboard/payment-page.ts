import type { FastifyInstance } from 'fastify';
import { simulateChargeback } from '../../domain/chargebacks.ts';
import { type PaymentDetail, paymentDetail } from '../../domain/dashboard/payment-detail.ts';
import { refundTransaction } from '../../domain/refunds.ts';
import { maskedCard, REFUNDABLE_STATUSES, TX_STATUS_TEXT } from '../../domain/transactions.ts';
import { refundDeps } from '../../services.ts';
import type { Services } from '../services.ts';
import { field, requireActive, type Signed, seeOther } from './context.ts';
import { money, when } from './format.ts';
import { page, postForm } from './layout.ts';
import { html, type Markup } from './markup.ts';
import { minorUnitsOf } from './payment-filters.ts';
import { statusClass } from './payments.ts';
import { getPage, postAction } from './routes.ts';

type Id = { id: string };

function facts(d: PaymentDetail): Markup {
  const tx = d.transaction;
  const metadata = Object.entries(d.intent?.metadata ?? {});
  return html`<dl class="facts">
<dt>Status</dt><dd class="${statusClass(tx)}">${TX_STATUS_TEXT[tx.status]}${tx.chargeback ? ' · chargeback' : ''}</dd>
<dt>Amount</dt><dd>${money(tx.amount, tx.currency)}</dd><dt>Refunded</dt><dd>${money(tx.refundedAmount, tx.currency)}</dd>
<dt>Fee</dt><dd>${money(tx.feeAmount, tx.currency)}</dd><dt>Card</dt><dd class="mono">${tx.card.brand} ${maskedCard(tx.card)}</dd>
<dt>Cardholder</dt><dd>${tx.cardholder}</dd><dt>Mode</dt><dd>${tx.mode}</dd><dt>Transaction</dt><dd class="mono">${tx.id}</dd>
<dt>Payment intent</dt><dd class="mono">${tx.paymentIntentId}</dd><dt>Reference</dt><dd>${d.intent?.reference ?? '—'}</dd>
<dt>External id</dt><dd>${tx.externalid ?? '—'}</dd><dt>Description</dt><dd>${d.intent?.description ?? '—'}</dd>
${metadata.map(([k, v]) => html`<dt>Metadata: ${k}</dt><dd>${v}</dd>`)}</dl>`;
}

const table = (label: string, head: Markup, rows: Markup[]) =>
  rows.length === 0
    ? html`<p class="muted">None.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${label}"><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;

function history(d: PaymentDetail): Markup {
  return html`<h2>Attempts</h2>${table(
    'Attempts',
    html`<th>Created</th><th>Outcome</th><th>Decline code</th><th class="hide-narrow">Card</th>`,
    d.attempts.map(
      (a) =>
        html`<tr><td><a href="/dashboard/payments/${a.id}"${a.id === d.transaction.id ? html` aria-current="page"` : ''}>${when(a.createdAt)}</a></td><td class="${statusClass(a)}">${TX_STATUS_TEXT[a.status]}</td><td>${a.declineCode ?? ''}</td><td class="mono hide-narrow">${maskedCard(a.card)}</td></tr>`,
    ),
  )}
<h2>Refunds</h2>${table(
    'Refunds',
    html`<th>Created</th><th class="num">Amount</th><th>Id</th>`,
    d.refunds.map(
      (r) =>
        html`<tr><td>${when(r.createdAt)}</td><td class="num">${money(r.amount, r.currency)}</td><td class="mono">${r.id}</td></tr>`,
    ),
  )}
<h2>Timeline</h2>${table(
    'Timeline',
    html`<th>When</th><th>Event</th><th>Id</th>`,
    d.events.map((e) => html`<tr><td>${when(e.createdAt)}</td><td>${e.type}</td><td class="mono">${e.id}</td></tr>`),
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
  const tx = d.transaction;
  const left = tx.amount - tx.refundedAmount;
  const refund = REFUNDABLE_STATUSES.includes(tx.status)
    ? html`<form method="get" action="/dashboard/payments/${tx.id}/refund" class="fields"><label>Refund amount (up to ${money(left)})<input name="amount" inputmode="decimal" value="${(left / 100).toFixed(2)}" required></label><button type="submit">Refund…</button></form>`
    : '';
  const chargeback =
    tx.mode === 'sandbox' && !tx.chargeback && [20, 40, 41].includes(tx.status)
      ? postForm(
          signed,
          `/dashboard/payments/${tx.id}/chargeback`,
          html`<button class="danger" type="submit">Simulate a chargeback (sandbox)</button>`,
        )
      : '';
  if (!refund && !chargeback) return html``;
  return html`<section class="panel actions" aria-label="Actions">${refund}${chargeback}</section>`;
}

/** The payment's page, the refund's confirmation step, the refund and the sandbox chargeback. */
export function registerPaymentPage(scope: FastifyInstance, services: Services): void {
  getPage<Id>(scope, '/payments/:id', async (signed, request) => {
    const detail = await paymentDetail(services.repos, signed.account, request.params.id);
    const done = request.query.done === 'refund' ? html`<p class="notice" role="status">Refund made.</p>` : '';
    return page(signed, {
      title: `Payment of ${money(detail.transaction.amount)}`,
      section: '/dashboard/payments',
      body: html`${done}${actions(signed, detail)}<section class="panel">${facts(detail)}</section>${history(detail)}`,
    });
  });

  getPage<Id>(scope, '/payments/:id/refund', async (signed, request) => {
    const amount = minorUnitsOf(String(request.query.amount ?? ''), 'amount');
    const detail = await paymentDetail(services.repos, signed.account, request.params.id);
    const id = detail.transaction.id;
    return page(signed, {
      title: 'Confirm the refund',
      section: '/dashboard/payments',
      body: html`<section class="panel"><p>Refund <strong>${money(amount)}</strong> of the ${money(detail.transaction.amount)} paid by ${detail.transaction.cardholder}? The shopper gets the money back; this cannot be undone.</p>
${postForm(signed, `/dashboard/payments/${id}/refund`, html`<input type="hidden" name="amount" value="${amount}"><button type="submit">Confirm refund of ${money(amount)}</button> <a href="/dashboard/payments/${id}">Cancel</a>`)}</section>`,
    });
  });

  postAction<Id>(scope, '/payments/:id/refund', async (signed, request, reply) => {
    requireActive(signed);
    const amount = Number(field(request, 'amount'));
    await refundTransaction(refundDeps(services), services.clock, signed.account, request.params.id, {
      amount: Number.isSafeInteger(amount) && amount > 0 ? amount : -1,
    });
    return seeOther(reply, `/dashboard/payments/${encodeURIComponent(request.params.id)}?done=refund`);
  });

  postAction<Id>(scope, '/payments/:id/chargeback', async (signed, request, reply) => {
    requireActive(signed);
    await simulateChargeback(services.repos, services.clock, signed.account, request.params.id);
    return seeOther(reply, `/dashboard/payments/${encodeURIComponent(request.params.id)}`);
  });
}
