import type { FastifyInstance } from 'fastify';
import { dashboardSummary } from '../../domain/dashboard/summary.ts';
import type { Services } from '../../services.ts';
import { volumeChart } from './chart.ts';
import { day, money } from './format.ts';
import { page } from './layout.ts';
import { html } from './markup.ts';
import { signInPage } from './sign-in.ts';

/** GET /dashboard: the sign-in form when signed out; the 30-day summary when signed in. */
export function registerHome(scope: FastifyInstance, services: Services): void {
  scope.get('/', async (request, reply) => {
    reply.type('text/html; charset=utf-8');
    const signed = request.dashboard;
    if (!signed) return signInPage(request.theme);
    const summary = await dashboardSummary(
      services.repos.dashboardStats,
      services.clock,
      signed.account,
      signed.session.mode,
    );
    const rate = summary.successRate === null ? '—' : `${(summary.successRate * 100).toFixed(1)} %`;
    const busy = summary.days.filter((d) => d.count > 0).reverse();
    const body = html`<section class="panel" aria-labelledby="volume"><h2 id="volume">Settled, last 30 days (${signed.session.mode})</h2>
<div class="stats"><div>Volume<strong>${money(summary.totalAmount)}</strong></div>
<div>Payments<strong>${summary.totalCount}</strong></div><div>Success rate<strong>${rate}</strong></div></div>
${volumeChart(summary.days)}</section>
<section class="panel" aria-labelledby="per-day"><h2 id="per-day">Days with settled payments</h2>
${
  busy.length === 0
    ? html`<p class="muted">No settled ${signed.session.mode} payments in the last 30 days.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Settled per day"><table><thead><tr><th>Day</th><th class="num">Payments</th><th class="num">Volume</th></tr></thead><tbody>${busy.map(
        (d) =>
          html`<tr><td>${day(d.day)}</td><td class="num">${d.count}</td><td class="num">${money(d.amount)}</td></tr>`,
      )}</tbody></table></div>`
}</section>`;
    return page(signed, { title: 'Home', section: '/dashboard', body });
  });
}
