import type { FastifyInstance } from 'fastify';
import {
  listPayments,
  PAYMENT_STATUS_TEXT,
  type PaymentRow,
  type PaymentStatus,
} from '../../domain/dashboard/payment-list.ts';
import { maskedCard, type Transaction } from '../../domain/transactions.ts';
import type { Services } from '../../services.ts';
import { money, when } from './format.ts';
import { page } from './layout.ts';
import { html, type Markup } from './markup.ts';
import { FILTER_FIELDS, type FilterQuery, paymentFilter } from './payment-filters.ts';
import { getPage } from './routes.ts';

const PAGE_SIZE = 25;

const BAD: readonly string[] = ['failed', 'chargeback', 'expired'];
const NEUTRAL: readonly string[] = ['requires_payment', 'pending'];

/** The colour of a status: a payment's, or one attempt's (by its own status text's sense). */
export const paymentStatusClass = (status: PaymentStatus) =>
  BAD.includes(status) ? 'status-bad' : NEUTRAL.includes(status) ? '' : 'status-ok';

export const attemptStatusClass = (tx: Transaction) =>
  tx.status === 30 || tx.status === 31 || tx.status === 50 ? 'status-bad' : tx.status === 10 ? '' : 'status-ok';

function filterForm(query: FilterQuery): Markup {
  const options = Object.entries(PAYMENT_STATUS_TEXT).map(
    ([code, text]) => html`<option value="${code}"${query.status === code ? html` selected` : ''}>${text}</option>`,
  );
  const input = (name: keyof FilterQuery, label: string, type = 'text', extra = html``) =>
    html`<label>${label}<input type="${type}" name="${name}" value="${query[name] ?? ''}"${extra}></label>`;
  return html`<form method="get" action="/dashboard/payments" class="panel fields" aria-label="Filter payments">
<label>Status<select name="status"><option value="">Any</option>${options}</select></label>
${input('from', 'From', 'date')}${input('to', 'To', 'date')}
${input('min', 'Min amount', 'text', html` inputmode="decimal" size="8"`)}${input('max', 'Max amount', 'text', html` inputmode="decimal" size="8"`)}
${input('externalid', 'External id')}${input('reference', 'Order reference')}
${input('last4', 'Card last 4', 'text', html` inputmode="numeric" size="4" maxlength="4" pattern="[0-9]{4}"`)}
<button type="submit">Filter</button> <a href="/dashboard/payments">Clear</a></form>`;
}

/** What the attempts did, in a few words: "none yet", "1", "3 (2 declined)". */
function attemptsText(row: PaymentRow): string {
  if (row.attempts === 0) return 'none yet';
  const failed = row.intent.failedAttempts;
  return failed > 0 && failed < row.attempts ? `${row.attempts} (${failed} failed)` : String(row.attempts);
}

function row(item: PaymentRow): Markup {
  const { intent, last } = item;
  const declined =
    item.status === 'failed' && last?.declineCode ? html` <span class="muted">(${last.declineCode})</span>` : '';
  return html`<tr><td><a href="/dashboard/payments/${intent.id}">${when(intent.createdAt)}</a></td>
<td class="num">${money(intent.amount, intent.currency)}</td><td class="${paymentStatusClass(item.status)}">${PAYMENT_STATUS_TEXT[item.status]}${declined}</td>
<td class="hide-narrow mono">${last ? maskedCard(last.card) : '—'}</td><td class="hide-narrow">${attemptsText(item)}</td>
<td>${intent.reference ?? ''}</td><td class="hide-narrow">${intent.externalid ?? ''}</td></tr>`;
}

/**
 * GET /dashboard/payments: every payment intent of the session's mode, newest first, with
 * what its newest attempt did; filtered, 25 a page by keyset (docs/decisions/0140).
 */
export function registerPayments(scope: FastifyInstance, services: Services): void {
  getPage(scope, '/payments', async (signed, request) => {
    const query: FilterQuery = {};
    for (const name of FILTER_FIELDS) if (request.query[name]) query[name] = String(request.query[name]);
    const after = request.query.after ? String(request.query.after).slice(0, 64) : undefined;
    const list = await listPayments(
      { payments: services.repos.paymentList, intents: services.repos.intents },
      signed.account,
      { filter: paymentFilter(query, signed.session.mode), limit: PAGE_SIZE, startingAfter: after },
    );
    const last = list.data[list.data.length - 1]?.intent;
    const params = new URLSearchParams(query as Record<string, string>);
    const next = last && list.hasMore ? `/dashboard/payments?${params}&after=${last.id}`.replace('?&', '?') : null;
    const table =
      list.data.length === 0
        ? html`<p class="muted">No ${signed.session.mode} payments match.</p>`
        : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Payments"><table><thead><tr><th>Created</th><th class="num">Amount</th><th>Status</th><th class="hide-narrow">Card</th><th class="hide-narrow">Attempts</th><th>Order reference</th><th class="hide-narrow">External id</th></tr></thead>
<tbody>${list.data.map(row)}</tbody></table></div>`;
    const pager = html`<nav class="pager" aria-label="Pages">${after ? html`<a href="/dashboard/payments?${params.toString()}">First page</a>` : ''}${next ? html`<a href="${next}">Next page</a>` : ''}</nav>`;
    return page(signed, {
      title: `Payments (${signed.session.mode})`,
      section: '/dashboard/payments',
      body: html`${filterForm(query)}${table}${pager}`,
    });
  });
}
