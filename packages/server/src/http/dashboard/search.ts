import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { seeOther } from './context.ts';
import { html } from './markup.ts';
import { getPage } from './routes.ts';

const ID = /^[0-9a-f]{24}$/;
const LAST4 = /^\d{4}$/;

/** The header's search box: an intent or transaction id, an order reference, or a card's last 4 digits. */
export const searchBox = (value = '') =>
  html`<form method="get" action="/dashboard/search" class="search" role="search"><label for="search-q" class="visually-hidden">Search payments</label><input id="search-q" name="q" type="search" value="${value}" maxlength="255" placeholder="Id, order reference or last 4"><button class="secondary" type="submit">Search</button></form>`;

/**
 * GET /dashboard/search?q=…: an id of this account's payment intent or transaction opens its
 * payment; 4 digits list the payments with a card ending in them; anything else lists the
 * payments with that order reference. A foreign id is not found, like any other.
 */
export function registerSearch(scope: FastifyInstance, services: Services): void {
  getPage(scope, '/search', async (signed, request, reply) => {
    const q = String(request.query.q ?? '')
      .trim()
      .slice(0, 255);
    if (q === '') return seeOther(reply, '/dashboard/payments');
    const accountId = signed.account.id;
    if (ID.test(q)) {
      const intent = await services.repos.intents.find(accountId, q);
      if (intent) return seeOther(reply, `/dashboard/payments/${intent.id}`);
      const transaction = await services.repos.transactions.find(accountId, q);
      if (transaction)
        return seeOther(reply, `/dashboard/payments/${transaction.paymentIntentId}#attempt-${transaction.id}`);
    }
    const filter: Record<string, string> = LAST4.test(q) ? { last4: q } : { reference: q };
    return seeOther(reply, `/dashboard/payments?${new URLSearchParams(filter)}`);
  });
}
