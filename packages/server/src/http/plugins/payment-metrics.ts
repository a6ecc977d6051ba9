import { Gauge, type Registry } from 'prom-client';
import type { Services } from '../../services.ts';

/**
 * Payment health an operator alerts on. Read from the database when scraped, so every
 * process reports the same number whichever of them flagged the attempts.
 */
export function usePaymentMetrics(registry: Registry, services: Services): void {
  new Gauge({
    name: 'obolus_payment_attempts_requires_review',
    help: 'Payment attempts still of unknown outcome after OBOLUS_REVIEW_UNKNOWN_AFTER_MS: an operator should look (docs/live.md).',
    registers: [registry],
    async collect() {
      // While the database is away the scrape still answers, with the last count and the rest.
      const count = await services.repos.payments.countAwaitingReviewAcrossAccounts().catch(() => null);
      if (count !== null) this.set(count);
    },
  });
}
