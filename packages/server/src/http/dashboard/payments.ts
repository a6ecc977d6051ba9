import type { FastifyInstance } from 'fastify';
import { listTransactions } from '../../domain/transaction-queries.ts';
import { maskedCard, type Transaction, TX_STATUS_TEXT } from '../../domain/transactions.ts';
import type { Services } from '../services.ts';
import { money, when } from './format.ts';
import { page } from './layout.ts';
import { html, type Markup } from './markup.ts';
import { FILTER_FIELDS, type FilterQuery, transactionFilter } from './payment-filters.ts';
import { getPage } from './routes.ts';

const PAGE_SIZE = 25;

export const statusClass = (tx: Transaction) =>
  tx.status === 30 || tx.status === 31 || tx.status === 50 ? 'status-bad' : tx.status === 10 ? '' : 'status-ok';

function filterForm(query: FilterQuery): Markup {
  const options = Object.entries(TX_STATUS_TEXT).map(
    ([code, text]) => html`<option value="${code}"${query.status === code ? html` selected` : ''}>${text}</option>`,
  );
  const input = (name: keyof FilterQuery, label: string, type = 'text', extra = html``) =>
    html`<label>${label}<input type="${type}" name="${name}" value="${query[name] ?? ''}"${extra}></label>`;
  return html`<form method="get" action="/dashboard/payments" class="panel fields" aria-label="Filter payments">
<label>Status<select name="status"><option value="">Any</option>${options}</select></label>
${input('from', 'From', 'date')}${input('to', 'To', 'date')}
${input('min', 'Min amount', 'text', html` inputmode="decimal" size="8"`)}${input('max', 'Max amount', 'text', html` inputmode="decimal" size="8"`)}
${input('externalid', 'External id')}${input('reference', 'Reference')}
<button type="submit">Filter</button> <a href="/dashboard/payments">Clear</a></form>`;
}

function row(tx: Transaction): Markup {
  return html`<tr><td><a href="/dashboard/payments/${tx.id}">${when(tx.createdAt)}</a></td>
<td class="num">${money(tx.amount, tx.currency)}</td><td class="${statusClass(tx)}">${TX_STATUS_TEXT[tx.status]}${tx.chargeback ? ' · chargeback' : ''}</td>
<td class="hide-narrow mono">${maskedCard(tx.card)}</td><td class="hide-narrow">${tx.externalid ?? ''}</td></tr>`;
}

/** GET /dashboard/payments: every attempt, newest first, filtered, 25 a page by keyset. */
export function registerPayments(scope: FastifyInstance, services: Services): void {
  getPage(scope, '/payments', async (signed, request) => {
    const query: FilterQuery = {};
    for (const name of FILTER_FIELDS) if (request.query[name]) query[name] = String(request.query[name]);
    const after = request.query.after ? String(request.query.after) : undefined;
    const list = await listTransactions(services.repos, signed.account, {
      filter: transactionFilter(query, signed.session.mode),
      limit: PAGE_SIZE,
      startingAfter: after,
    });
    const last = list.data[list.data.length - 1]?.transaction;
    const params = new URLSearchParams(query as Record<string, string>);
    const next = last && list.hasMore ? `/dashboard/payments?${params}&after=${last.id}`.replace('?&', '?') : null;
    const table =
      list.data.length === 0
        ? html`<p class="muted">No ${signed.session.mode} payments match.</p>`
        : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Payments"><table><thead><tr><th>Created</th><th class="num">Amount</th><th>Status</th><th class="hide-narrow">Card</th><th class="hide-narrow">External id</th></tr></thead>
<tbody>${list.data.map((item) => row(item.transaction))}</tbody></table></div>`;
    const pager = html`<nav class="pager" aria-label="Pages">${after ? html`<a href="/dashboard/payments?${params.toString()}">First page</a>` : ''}${next ? html`<a href="${next}">Next page</a>` : ''}</nav>`;
    return page(signed, {
      title: `Payments (${signed.session.mode})`,
      section: '/dashboard/payments',
      body: html`${filterForm(query)}${table}${pager}`,
    });
  });
}
