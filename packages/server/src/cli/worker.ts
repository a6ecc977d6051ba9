import type { Command } from 'commander';

/**
 * `obolus worker`: webhook delivery and event retention without the HTTP API. Run any
 * number beside `obolus serve` processes (which may set OBOLUS_WEBHOOKS_POLL_MS=0 to leave
 * webhooks to the workers); deliveries are claimed so that no two send the same one.
 */
export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('Deliver webhooks (and prune old events) without serving HTTP; run as many as you like.')
    .action(async () => {
      // The service loads when the command runs, never for `--help` (decision 0260).
      const [{ loadConfig }, { createLogger }, { openServices }, { connectionLossLog }, dispatching, check] =
        await Promise.all([
          import('../config.ts'),
          import('../logger.ts'),
          import('../services.ts'),
          import('../workers/failure-log.ts'),
          import('../workers/webhooks/dispatcher.ts'),
          import('./database-check.ts'),
        ]);
      const { LEASE_MS, WebhookDispatcher } = dispatching;
      const { requireExistingDatabase } = check;
      const config = loadConfig();
      await requireExistingDatabase(config);
      const logger = createLogger(config.logLevel);
      const services = await openServices(config, {
        onMigration: (name) => logger.info({ migration: name }, 'applied migration'),
        onConnectionLost: connectionLossLog(logger),
      });
      const dispatcher = new WebhookDispatcher(services, {
        logger,
        leaseMs: services.config.recovery?.webhookLeaseMs ?? LEASE_MS,
      });
      // This process exists to dispatch: a poll of 0 (meant for API processes) means the default here.
      const pollMs = config.webhooksPollMs || 1000;
      dispatcher.start(pollMs);
      logger.info({ database: services.database.location, poll_ms: pollMs }, 'webhook worker started');
      const stop = async (signal: string) => {
        logger.info({ signal }, 'webhook worker stopping');
        await dispatcher.stop();
        await services.database.close();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
