import type { Logger } from 'pino';
import type { Services } from '../../services.ts';
import { LEASE_MS, WebhookDispatcher } from './dispatcher.ts';

/**
 * The dispatcher as background work of `obolus serve` or `obolus worker`, polling every
 * OBOLUS_WEBHOOKS_POLL_MS; with 0 this process sends no webhooks (another process does).
 */
export function startWebhookWorker(services: Services, logger: Logger): { stop(): Promise<void> } {
  const pollMs = services.config.webhooksPollMs;
  if (pollMs === 0) return { stop: async () => {} };
  const dispatcher = new WebhookDispatcher(services, {
    logger,
    leaseMs: services.config.recovery?.webhookLeaseMs ?? LEASE_MS,
  });
  dispatcher.start(pollMs);
  return { stop: () => dispatcher.stop() };
}
